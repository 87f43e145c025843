// `local`: the host as a child process on a free loopback port, with a generated SESSION_API_KEY, the
// workspace (`workspace_base` or a temp dir) and the client's environment (as OpenHands' LocalRuntime). No
// isolation. sandbox.lifetime and idle_timeout are kept by ah-local-keeper (local_keeper.cpp), started
// here and detached so that it outlives the client.
#include <signal.h>
#include <unistd.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/lifetime/keeper_client.hpp>
#include <actionhost/lifetime/lifetime_plan.hpp>
#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "host_freezer.hpp"
#include "local_host.hpp"
#include "warm_pool.hpp"

namespace {

using namespace actionhost::runtime_support;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace actionhost::local_runtime;

class LocalRuntime : public Backend {
    // [sandbox] warm_pool_size, or OpenHands' INITIAL_NUM_WARM_SERVERS (the number of servers its local
    // runtime starts ahead of use) when the key is unset or 0.
    double warm_pool_size_setting() const {
        if (double n = config_number("sandbox.warm_pool_size", 0); n > 0) return n;
        if (const char *e = std::getenv("INITIAL_NUM_WARM_SERVERS"); e && *e) return std::atof(e);
        return 0;
    }

  public:
    using Backend::Backend;
    ~LocalRuntime() override {
        // Destroyed without close (client crash paths): never leave an unkept host behind.
        if (pid_ > 0 && !kept_) stop();
    }

    void connect() override {
        const actionhost::lifetime::LifetimePlan lifetime = lifetime_plan();  // refused before anything starts
        if (attach()) return;
        try {
            start(lifetime);
        } catch (...) {
            stop();  // a failed start leaves no process, directory or cgroup behind
            throw;
        }
    }

    void start(const actionhost::lifetime::LifetimePlan &lifetime) {
        LaunchPlan plan;
        plan.install_dir = info().install_dir;
        plan.workspace_base = config_string("core.workspace_base", "");
        // A dead kept-alive host's temporary workspace is taken over (see attach), not forgotten.
        const std::string inherited = plan.workspace_base.empty() && !temp_workspace_.empty() && fs::is_directory(temp_workspace_)
                                          ? temp_workspace_
                                          : "";
        if (!inherited.empty()) plan.workspace_base = inherited;
        plan.args = host_args();
        remove_flag(plan.args, "--working-dir");
        // As OpenHands' LocalRuntime the host and its actions run as the client's own user, except for a
        // root client with `sandbox.user_id` set (SANDBOX_USER_ID, default: the client's uid): then the host
        // (root) sets up the user --username (openhands, or RUNTIME_USERNAME) with that uid on this machine
        // (useradd, or an existing user of that name is adopted) and runs the actions as it.
        const double wanted_uid = config_number("sandbox.user_id", getuid());
        if (!(getuid() == 0 && config_bool("core.run_as_openhands", true) && wanted_uid > 0)) {
            set_flag(plan.args, "--username", user_name(getuid()));
            set_flag(plan.args, "--user-id", std::to_string(getuid()));
        }
        set_flag(plan.args, "--host", "127.0.0.1");
        plan.env = process_environment();
        for (const auto &[k, v] : host_env()) plan.env[k] = v;
        plan.env["LOCAL_RUNTIME_MODE"] = "1";
        plan.env["OPENHANDS_SESSION_ID"] = info().session_id;
        plan.env["USER"] = user_name(getuid());
        const bool keep = config_bool("sandbox.keep_runtime_alive", false);
        plan.die_with_parent = !keep;
        plan.keep = keep;
        // A kept-alive host must outlive this process, which pool hosts do not: no pool for those
        // (nor for a takeover, whose workspace is given).
        const auto pool_size = static_cast<size_t>(keep || !inherited.empty() ? 0 : std::max(0.0, warm_pool_size_setting()));

        std::optional<LocalHost> host;
        if (pool_size > 0) {
            status(AH_STATUS_STARTING_RUNTIME, "taking a host from the warm pool");
            host = WarmPool::instance().take(plan.pool_key(), 60);
        }
        if (host) {
            from_pool_ = true;
        } else {
            status(AH_STATUS_STARTING_RUNTIME, "starting the host as a local process");
            host = launch_host(plan, 60);
        }
        pid_ = host->pid;
        url_ = host->url;
        key_ = host->key;
        run_dir_ = host->run_dir;
        workspace_ = host->workspace;
        temp_workspace_ = inherited.empty() ? host->temp_workspace : inherited;
        wait_alive(url_, key_, 120);
        if (lifetime.any()) start_keeper(lifetime);
        status(AH_STATUS_RUNTIME_STARTED, url_ + (from_pool_ ? " (from the warm pool)" : ""));
        if (keep) save_state();
        if (pool_size > 0) WarmPool::instance().fill(plan, pool_size);  // refill for the next start
    }

    Endpoint endpoint() override { return {url_, key_, "local-" + std::to_string(pid_)}; }

    void pause() override {
        if (pid_ <= 0 || kill(-pid_, SIGSTOP) != 0) throw std::runtime_error("the local host is not running");
    }
    void resume() override {
        if (pid_ <= 0 || kill(-pid_, SIGCONT) != 0) throw std::runtime_error("the local host is not running");
    }

    void close() override {
        if (pid_ <= 0) return;
        if (config_bool("sandbox.keep_runtime_alive", false)) {
            kept_ = true;
            save_state();
            return;
        }
        stop();
    }

    // Kept-alive hosts, answered for without connecting (sdk ext/runtime_reclaim.h). A dead kept host's
    // record stays: the session's next start takes its workspace over (attach).
    bool reclaims_sandboxes() const override { return true; }
    bool sandbox_exists() override {
        // Asked without removing a dead host's record: the session's next start takes its workspace over.
        const auto record = actionhost::common::read_json_object_file(state_path());
        return record && kept_alive_record_is_live(*record);
    }
    void discard() override {
        if (pid_ <= 0) {
            std::ifstream in(state_path());
            json s = json::parse(in, nullptr, false);
            if (!s.is_object()) return;
            // A dead host's pid may be another process's by now: only a live one is signalled.
            pid_ = kept_alive_record_is_live(s) ? s.value("pid", 0) : -1;
            url_ = s.value("url", "");
            run_dir_ = s.value("run_dir", "");
            temp_workspace_ = s.value("temp_workspace", "");
            workspace_ = s.value("workspace", "");
            if (pid_ > 0) kill(-pid_, SIGCONT);
        }
        stop();
    }
    void reclaim(bool, const std::function<void(const std::string &)> &) override {
        sweep_dead_hosts();
        sweep_freezer_groups();
    }

    // The lifetime kept by ah-local-keeper, asked through its control socket: from the client that
    // started the host, or from any later one of the session (its keeper's record).
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override {
        require_running_host();
        return actionhost::lifetime::keeper_lifetime_state(keeper_record());
    }
    std::string extend_lifetime(long long seconds) override {
        require_running_host();
        return actionhost::lifetime::keeper_extend(keeper_record(), seconds);
    }

  private:
    std::string state_path() const { return kept_alive_record_path(state_dir(), "local", info().session_id); }

    // Reattaches to a host this session id left running (keep_runtime_alive), when it still answers.
    bool attach() {
        if (auto dead = take_dead_kept_alive_record(state_path())) {
            // The kept host died (killed, out of memory, the machine restarted). Start a new one on its
            // workspace so the session's files survive; say so, since its shell state did not.
            temp_workspace_ = dead->value("temp_workspace", "");
            std::error_code ec;
            if (const std::string old_run = dead->value("run_dir", ""); !old_run.empty()) fs::remove_all(old_run, ec);
            status(AH_STATUS_STARTING_RUNTIME, "the kept host (pid " + std::to_string(dead->value("pid", 0)) +
                                                   ") is gone: starting a new host on its workspace " +
                                                   dead->value("workspace", std::string("")) + "; shell state is lost");
            return false;
        }
        auto s = load_kept_alive_record(state_path());
        if (!s) return false;
        pid_ = s->value("pid", 0);
        url_ = s->value("url", "");
        key_ = s->value("session_api_key", "");
        run_dir_ = s->value("run_dir", "");
        temp_workspace_ = s->value("temp_workspace", "");
        workspace_ = s->value("workspace", "");
        kill(-pid_, SIGCONT);  // it may have been paused
        wait_alive(url_, key_, 30);
        status(AH_STATUS_RUNTIME_STARTED, "attached to " + url_);
        return true;
    }

    actionhost::lifetime::LifetimePlan lifetime_plan() const {
        return actionhost::lifetime::plan_lifetime({config("sandbox.lifetime"), config("sandbox.idle_timeout"), config("sandbox.idle_action")});
    }

    std::string state_dir() const { return config_string("core.state_dir", "/tmp"); }
    std::string keeper_record() const { return actionhost::lifetime::keeper_record_path(state_dir(), "local", info().session_id); }

    void require_running_host() const {
        if (pid_ > 0) return;
        const auto record = actionhost::common::read_json_object_file(state_path());
        if (!record || !kept_alive_record_is_live(*record))
            throw std::runtime_error("session " + std::string(info().session_id) + " has no running local host");
    }

    // ah-local-keeper for this host, detached: it keeps the time whether this client lives or not,
    // and at the end removes what `stop` removes, this session's records included.
    void start_keeper(const actionhost::lifetime::LifetimePlan &lifetime) {
        actionhost::lifetime::end_keeper(keeper_record());  // an earlier host's of this session, if one is left
        const std::string port = url_.substr(url_.rfind(':') + 1);
        std::vector<std::string> argv = {info().install_dir + std::string("/lib/actionhost/runtimes/local/ah-local-keeper"),
                                         "--control-socket", actionhost::lifetime::keeper_socket_path(state_dir(), "local", info().session_id),
                                         "--record", keeper_record(), "--log", run_dir_ + "/keeper.log",
                                         "--host-pid", std::to_string(pid_), "--port", port, "--run-dir", run_dir_,
                                         "--expiry-remove", state_path(), "--expiry-remove", client_record_path(state_dir(), info().session_id)};
        if (!temp_workspace_.empty()) argv.insert(argv.end(), {"--temp-workspace", temp_workspace_});
        const auto args = lifetime.args();
        argv.insert(argv.end(), args.begin(), args.end());
        status(AH_STATUS_STARTING_RUNTIME, "starting the host's lifetime keeper");
        actionhost::lifetime::start_keeper(argv);
    }

    void save_state() const {
        save_kept_alive_record(state_path(), json{{"pid", pid_}, {"url", url_}, {"session_api_key", key_}, {"run_dir", run_dir_},
                                                  {"temp_workspace", temp_workspace_}, {"workspace", workspace_}});
    }

    void stop() {
        // Its keeper first: it thaws a host it paused, and does not count the stop as the host's end.
        actionhost::lifetime::end_keeper(keeper_record());
        LocalHost h{pid_, url_, key_, run_dir_, workspace_, temp_workspace_};
        stop_host(h);
        pid_ = -1;
        std::error_code ec;
        fs::remove(state_path(), ec);
    }

    pid_t pid_ = -1;
    bool kept_ = false;
    bool from_pool_ = false;
    std::string url_, key_, run_dir_, workspace_, temp_workspace_;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<LocalRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("local", "0.1.0", create)
