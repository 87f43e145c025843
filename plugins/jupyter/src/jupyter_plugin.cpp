// The jupyter plugin: `run_ipython` (OpenHands' IPythonRunCellAction) against a real ipykernel, one kernel
// per session.
//
// Kernel lifecycle: the default session's kernel is started in the background at init (so the first cell
// rarely waits), other sessions' kernels on their first cell. A kernel that died is replaced on the next
// cell, whose output then starts with restart_notice_text(). Before a cell, when the session's bash cwd
// (call.cwd()) differs from the one last synced, the kernel first runs `import os; os.chdir(<cwd>)`.
#include <actionhost/plugin.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/observation.hpp"
#include "actionhost/common/text.hpp"
#include "kernel/kernel_session.hpp"
#include "plugin_config.hpp"

namespace actionhost::jupyter {
namespace {

using sdk::Call;
using sdk::Host;

constexpr double kCwdSyncTimeoutS = 30.0;
constexpr auto kShutdownLockWait = std::chrono::seconds(10);

// Python's f"{timeout}" of the action's number: 120 → "120", 2.0 → "2.0", 0.5 → "0.5".
std::string python_number_text(const nlohmann::json &v) {
    if (v.is_number_integer() || v.is_number_unsigned()) return actionhost::common::dump_json(v);
    return actionhost::common::dump_json(v);  // nlohmann prints floats as Python's repr does for these: shortest, with ".0" if whole
}

struct SessionSlot {
    std::timed_mutex mu;
    std::unique_ptr<KernelSession> kernel;
    std::string interpreter;  // last known, for the trailer while no kernel runs
};

class JupyterPlugin final : public sdk::Plugin {
  public:
    explicit JupyterPlugin(Host host) : sdk::Plugin(host) {}
    ~JupyterPlugin() override { shutdown(); }

    ah_status_t init() override {
        std::vector<std::string> problems;
        config_ = read_plugin_config([this](const char *key) { return host().config(key); }, problems);
        for (const auto &p : problems) host().log(AH_LOG_WARNING, "jupyter: " + p);
        skills_cell_ = startup_cell();
        if (config_.eager_start) {
            std::shared_ptr<SessionSlot> slot = slot_for("");
            warmup_ = std::thread([this, slot] {
                std::lock_guard<std::timed_mutex> lock(slot->mu);
                auto running = stopping_ ? common::Status(common::ok()) : slot->kernel->ensure_running();
                if (!running)
                    host().log(AH_LOG_WARNING, "jupyter: the IPython kernel did not start at init: " + running.error().message +
                                                   " (will retry on the first cell)");
                else if (slot->kernel->has_kernel())
                    slot->interpreter = slot->kernel->interpreter();
            });
        }
        return AH_OK;
    }

    ah_status_t execute(Call &call) override {
        if (call.action() != "run_ipython") {
            call.reply(dump(common::error_observation("The jupyter plugin does not handle the action `" +
                                                      std::string(call.action()) + "`.")));
            return AH_OK;
        }
        auto parsed = common::parse_json(call.action_json());
        std::string bad;
        const nlohmann::json *args = nullptr;
        if (!parsed || !parsed.value().is_object()) bad = "the action is not a JSON object";
        else if (auto a = parsed.value().find("args"); a == parsed.value().end() || !a->is_object()) bad = "the action has no \"args\" object";
        else if (auto c = a->find("code"); c == a->end() || !c->is_string()) bad = "run_ipython needs a string \"code\"";
        else args = &*a;
        if (!bad.empty()) {
            call.reply(dump(common::error_observation("Invalid run_ipython action: " + bad + ".")));
            return AH_OK;
        }
        const std::string code = (*args)["code"].get<std::string>();
        bool include_extra = true;
        if (auto ie = args->find("include_extra"); ie != args->end() && ie->is_boolean()) include_extra = ie->get<bool>();
        double timeout_s = config_.default_timeout_s;
        std::string timeout_text = python_number_text(nlohmann::json(config_.default_timeout_s));
        if (static_cast<double>(static_cast<long long>(timeout_s)) == timeout_s)
            timeout_text = std::to_string(static_cast<long long>(timeout_s));
        if (auto t = parsed.value().find("timeout"); t != parsed.value().end() && t->is_number() && t->get<double>() > 0) {
            timeout_s = t->get<double>();
            timeout_text = python_number_text(*t);
        }

        if (stopping_) {
            call.reply(dump(common::error_observation("The host is shutting down; the IPython cell was not run.")));
            return AH_OK;
        }
        std::shared_ptr<SessionSlot> slot = slot_for(std::string(call.session()));
        if (!slot) {
            call.reply(dump(common::error_observation("Too many IPython sessions (at most " +
                                                      std::to_string(config_.max_sessions) + " kernels run at once).")));
            return AH_OK;
        }
        std::lock_guard<std::timed_mutex> lock(slot->mu);
        KernelSession &kernel = *slot->kernel;
        if (auto running = kernel.ensure_running(); !running) {
            call.reply(dump(common::error_observation("Could not start the IPython kernel: " + running.error().message)));
            return AH_OK;
        }
        std::string notice = kernel.take_restart_notice();
        const std::string cwd = call.cwd().empty() ? std::string(host().info().working_dir) : std::string(call.cwd());
        sync_cwd(kernel, cwd);
        if (!kernel.has_kernel()) {  // died while changing directory: start again
            if (auto running = kernel.ensure_running(); !running) {
                call.reply(dump(common::error_observation("Could not start the IPython kernel: " + running.error().message)));
                return AH_OK;
            }
            notice = kernel.take_restart_notice();
            sync_cwd(kernel, cwd);
        }
        slot->interpreter = kernel.interpreter();

        CellOutput out;
        PartialSink partial = [&call](std::string_view chunk) { call.emit_partial(chunk); };
        const CellResult r = kernel.execute(code, timeout_s, out, false, partial);
        std::string content;
        switch (r.status) {
            case CellStatus::Completed: content = out.text(); break;
            case CellStatus::TimedOut: content = "[Execution timed out (" + timeout_text + " seconds).]"; break;
            case CellStatus::KernelDied:
                content = (out.has_text() ? out.text() + "\n" : std::string()) + died_mid_cell_text(r.reason);
                break;
            case CellStatus::Stopped:
                call.reply(dump(common::error_observation("The host is shutting down; the IPython cell was interrupted.")));
                return AH_OK;
        }
        if (!notice.empty()) content = notice + "\n" + content;
        content = common::rstrip(content);
        if (include_extra) {
            content += "\n[Jupyter current working directory: " + cwd + "]";
            content += "\n[Jupyter Python interpreter: " + slot->interpreter + "]";
        }
        if (out.dropped_images() > 0)
            host().log(AH_LOG_WARNING, "jupyter: " + std::to_string(out.dropped_images()) +
                                           " image(s) of a cell exceeded the image budget and were dropped");

        nlohmann::ordered_json obs;
        obs["message"] = "Code executed in IPython cell.";
        obs["observation"] = "run_ipython";
        obs["content"] = std::move(content);
        obs["extras"]["code"] = code;
        if (out.image_urls().empty()) obs["extras"]["image_urls"] = nullptr;
        else obs["extras"]["image_urls"] = out.image_urls();
        obs["success"] = true;
        call.reply(actionhost::common::dump_ordered_json(obs));
        return AH_OK;
    }

    void shutdown() override {
        if (shut_down_.exchange(true)) return;
        stopping_ = true;
        std::vector<std::shared_ptr<SessionSlot>> slots;
        {
            std::lock_guard<std::mutex> lock(slots_mu_);
            for (auto &[name, slot] : slots_) slots.push_back(slot);
        }
        for (auto &slot : slots) slot->kernel->request_stop();  // running cells return within ~100 ms
        if (warmup_.joinable()) warmup_.join();
        for (auto &slot : slots) {
            std::unique_lock<std::timed_mutex> lock(slot->mu, std::defer_lock);
            if (lock.try_lock_for(kShutdownLockWait)) slot->kernel->shutdown();
            else host().log(AH_LOG_WARNING, "jupyter: a cell did not return in time; its kernel stops later");
        }
    }

  private:
    static std::string dump(const nlohmann::json &j) { return common::dump_json(j); }

    std::shared_ptr<SessionSlot> slot_for(const std::string &session) {
        std::lock_guard<std::mutex> lock(slots_mu_);
        auto it = slots_.find(session);
        if (it != slots_.end()) return it->second;
        if (slots_.size() >= config_.max_sessions) return nullptr;
        auto slot = std::make_shared<SessionSlot>();
        slot->kernel = std::make_unique<KernelSession>(ctx_, kernel_config());
        slots_.emplace(session, slot);
        return slot;
    }

    KernelConfig kernel_config() const {
        KernelConfig k;
        k.command = config_.kernel_command;
        k.username = host().info().username ? host().info().username : "";
        k.working_dir = host().info().working_dir ? host().info().working_dir : "";
        k.start_timeout_s = config_.start_timeout_s;
        k.interrupt_by_message = config_.interrupt_by_message;
        if (!skills_cell_.empty()) k.init_cells.push_back(skills_cell_);
        const ah_host_t *raw = host().raw();
        k.log = [raw](LogLevel level, const std::string &msg) {
            raw->log(raw, common::to_abi(level), ("jupyter: " + msg).c_str());
        };
        return k;
    }

    // What other plugins offer every kernel (OpenHands star-imports its agent skills into each one): their
    // directories on sys.path, then a star import of each module. A directory that is missing is logged
    // and skipped, the kernel starts anyway.
    std::string startup_cell() const {
        std::string cell;
        for (const auto &dir : config_.python_path) {
            std::error_code ec;
            if (!std::filesystem::is_directory(dir, ec)) {
                host().log(AH_LOG_WARNING, "jupyter: the Python directory " + dir + " a plugin offers is missing");
                continue;
            }
            const std::string quoted = actionhost::common::dump_json(nlohmann::json(dir));  // a JSON string is a valid Python literal
            cell += "import sys\nif " + quoted + " not in sys.path: sys.path.insert(0, " + quoted + ")\n";
        }
        for (const auto &module : config_.python_startup_imports) cell += "from " + module + " import *\n";
        return cell;
    }

    void sync_cwd(KernelSession &kernel, const std::string &cwd) {
        if (cwd.empty() || cwd == kernel.synced_cwd) return;
        CellOutput ignored;
        // A JSON string literal is a valid Python string literal, whatever the path holds.
        const CellResult r = kernel.execute("import os; os.chdir(" + actionhost::common::dump_json(nlohmann::json(cwd)) + ")", kCwdSyncTimeoutS, ignored);
        if (r.status == CellStatus::Completed && !r.raised) kernel.synced_cwd = cwd;
        else host().log(AH_LOG_WARNING, "jupyter: could not change the kernel's directory to " + cwd + ": " + ignored.text());
    }

    zmq::context_t ctx_{1};
    PluginConfig config_;
    std::string skills_cell_;
    std::mutex slots_mu_;
    std::map<std::string, std::shared_ptr<SessionSlot>> slots_;
    std::thread warmup_;
    std::atomic<bool> stopping_{false};
    std::atomic<bool> shut_down_{false};
};

}  // namespace
}  // namespace actionhost::jupyter

ACTIONHOST_PLUGIN(actionhost::jupyter::JupyterPlugin, "jupyter", "0.1.0")
