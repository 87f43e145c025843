// `runloop`: the host in a Runloop devbox, as OpenHands' RunloopRuntime provisions one: a devbox named
// after the session whose entrypoint starts the host on port 4444, reached through a Runloop tunnel. Attach
// to a running devbox of the same name (resuming a suspended one); pause/resume = suspend/resume; close =
// shutdown (kept running with keep_runtime_alive). Lifetimes are Runloop's own (devbox_lifetime.hpp):
// sandbox.lifetime = keep_alive_time_seconds, idle_timeout = after_idle; a devbox its idle policy
// suspended is resumed here on the next request, as Runloop leaves that to its client.
#include <actionhost/ext/runtime_recovery.h>

#include <actionhost/runtime_support/cloud_backend.hpp>
#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "devbox_api.hpp"
#include "devbox_lifetime.hpp"
#include <actionhost/common/json_write.hpp>

namespace {

using namespace actionhost::runtime_support;
using nlohmann::json;

class RunloopRuntime : public CloudBackend {
  public:
    using CloudBackend::CloudBackend;
    ~RunloopRuntime() override {
        // Destroyed without close (a crashing client): never leave a devbox we started running.
        if (!id_.empty() && !kept_) shutdown_quietly();
    }

    void connect() override {
        // The lifetime before anything is asked of Runloop: a refusal leaves nothing behind.
        const json lifetime = runloop::launch_lifetime(
            lifetime_request([this](const std::string &key) { return config(key); }));
        open_api();
        launch_ = sandbox_host("runloop", 4444);
        key_ = launch_.session_api_key;

        status(AH_STATUS_STARTING_RUNTIME, "looking for a running Runloop devbox named " + std::string(info().session_id));
        if (auto existing = api_->find_by_name(info().session_id, "running")) {
            attach(*existing);
        } else if (auto suspended = api_->find_by_name(info().session_id, "suspended")) {
            // Suspended by its idle policy (after_idle) or a pause: this request resumes it.
            attach(*suspended);
            status(AH_STATUS_STARTING_RUNTIME, "resuming suspended Runloop devbox " + id_);
            api_->lifecycle(id_, "resume");
        } else {
            create(lifetime);
        }
        try {
            wait_running();
            url_ = api_->create_tunnel(id_, launch_.port);
            status(AH_STATUS_STARTING_RUNTIME, "waiting for the host at " + url_);
            wait_host();
        } catch (...) {
            if (!attached_) shutdown_quietly();
            throw;
        }
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    Endpoint endpoint() override { return {url_, key_, id_}; }

    void pause() override {
        api_->lifecycle(id_, "suspend");
        api_->wait_for_status(id_, {"suspended", "failure", "shutdown"}, timeout_s_);
    }

    void resume() override {
        api_->lifecycle(id_, "resume");
        wait_running();
        wait_host();
    }

    // The devbox's lifetime as Runloop keeps it (its DevboxView), connected or for the session's kept
    // devbox: the time left of keep_alive_time_seconds, or its after_idle policy and whether it is
    // suspended. Runloop has no call that moves a devbox's end.
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override {
        const std::string id = session_devbox();
        json d = api_->retrieve(id);
        const std::string st = d.value("status", "");
        if (st == "shutdown" || st == "failure")
            throw std::runtime_error("Runloop devbox " + id + " has ended (" + st + ": " +
                                     d.value(st == "failure" ? "failure_reason" : "shutdown_reason", std::string("no reason given")) + ")");
        return actionhost::common::dump_json(kept_lifetime_json(runloop::kept_lifetime(d), unix_now()));
    }
    std::string extend_lifetime(long long) override {
        throw Unsupported("Runloop cannot extend a devbox's lifetime: keep_alive_time_seconds is fixed when the devbox is created "
                          "(its keep_alive call only restarts an idle timer)");
    }

    // A request the tunnel refused: a devbox its idle policy suspended is resumed and the request
    // retried once; one that has ended is reported as gone, with Runloop's reason.
    bool handles_sandbox_errors() const override { return true; }
    int on_sandbox_error(int http_status) override {
        if (http_status != 404 && http_status != 502 && http_status != 503 && http_status != 504) return AH_RECOVERY_REPORT;
        json d = api_->retrieve(id_);
        std::string st = d.value("status", "");
        if (st == "suspending") st = api_->wait_for_status(id_, {"suspended", "failure", "shutdown"}, timeout_s_).value("status", "");
        if (st == "suspended") {
            log(AH_LOG_INFO, "Runloop devbox " + id_ + " is suspended: resuming it for the request");
            resume();
            return AH_RECOVERY_RETRY;
        }
        if (st == "resuming") {
            wait_running();
            wait_host();
            return AH_RECOVERY_RETRY;
        }
        if (st == "shutdown" || st == "failure")
            throw std::runtime_error("Runloop devbox " + id_ + " has ended (" + st + ": " +
                                     d.value(st == "failure" ? "failure_reason" : "shutdown_reason", std::string("no reason given")) + ")");
        return AH_RECOVERY_REPORT;
    }

    void close() override {
        if (id_.empty()) return;
        if (config_bool("sandbox.keep_runtime_alive", false)) {
            kept_ = true;
            save_kept_alive_record(record_path(), json{{"devbox_id", id_}, {"session_api_key", key_}});
            return;
        }
        std::string id = id_;
        id_.clear();
        api_->lifecycle(id, "shutdown");
        std::error_code ec;
        std::filesystem::remove(record_path(), ec);
    }

  private:
    void open_api() {
        if (api_) return;
        std::string key = credential("RUNLOOP_API_KEY", "core.runloop_api_key", "export your Runloop API key as RUNLOOP_API_KEY");
        std::string base = check_base_url("RUNLOOP_BASE_URL", setting("RUNLOOP_BASE_URL", "runloop.base_url", "https://api.runloop.ai"));
        api_ = std::make_unique<runloop::DevboxApi>(host(), base, key);
        timeout_s_ = config_number("runloop.init_timeout", 120);
    }

    void attach(const json &devbox) {
        id_ = devbox.value("id", "");
        attached_ = true;
        if (auto rec = load_record()) key_ = rec->value("session_api_key", key_);
    }

    // The devbox of this session: the connected one, else the one its kept-alive record names, else one
    // named after the session that is running or suspended. Throws when there is none.
    std::string session_devbox() {
        open_api();
        if (!id_.empty()) return id_;
        std::ifstream in(record_path());
        const json rec = in ? json::parse(in, nullptr, false) : json();
        if (rec.is_object() && !rec.value("devbox_id", "").empty()) return rec["devbox_id"];
        for (const char *st : {"running", "suspended"})
            if (auto d = api_->find_by_name(info().session_id, st)) return d->value("id", "");
        throw std::runtime_error("no Runloop devbox of session " + std::string(info().session_id));
    }

    void create(const json &lifetime) {
        json env = json::object();
        for (const auto &[k, v] : launch_.env) env[k] = v;
        json body = {
            {"name", info().session_id},
            {"entrypoint", "mkdir -p " + shell_quote(launch_.workspace) + " && exec " + shell_join(launch_.argv)},
            {"environment_variables", env},
            {"launch_parameters",
             {{"available_ports", {launch_.port, launch_.port + 1}},
              {"resource_size_request", config_string("runloop.resource_size", "LARGE")},
              {"launch_commands", {"mkdir -p " + shell_quote(launch_.workspace)}}}},
            {"metadata", {{"container-name", std::string("openhands-runtime-") + info().session_id}}}};
        for (const auto &[field, value] : lifetime.items()) body["launch_parameters"][field] = value;
        // Which image: a blueprint (by id or name), a snapshot, or a prebuilt image (OpenHands' default).
        if (auto v = config("runloop.blueprint_id")) body["blueprint_id"] = *v;
        else if (auto n = config("runloop.blueprint_name")) body["blueprint_name"] = *n;
        else if (auto s = config("runloop.snapshot_id")) body["snapshot_id"] = *s;
        else body["prebuilt"] = config_string("runloop.prebuilt", "openhands");
        status(AH_STATUS_STARTING_RUNTIME, "creating a Runloop devbox");
        json d = api_->create(body);
        id_ = d.value("id", "");
        if (id_.empty()) throw std::runtime_error("Runloop API: create devbox returned no id: " + actionhost::common::dump_json(d));
    }

    void wait_running() {
        json d = api_->wait_for_status(id_, {"running", "failure", "shutdown"}, timeout_s_);
        std::string st = d.value("status", "");
        if (st == "failure")
            throw std::runtime_error("Runloop devbox " + id_ + " failed: " + d.value("failure_reason", std::string("no reason given")));
        if (st == "shutdown")
            throw std::runtime_error("Runloop devbox " + id_ + " shut down: " + d.value("shutdown_reason", std::string("no reason given")));
    }

    // /alive through the tunnel, watching the devbox meanwhile: a devbox that stops (its entrypoint, the
    // host, exited) is reported at once instead of after the whole timeout.
    void wait_host() {
        poll_until("the host at " + url_ + " did not answer /alive", timeout_s_, 0, [&] {
            if (host()->wait_alive(host(), url_.c_str(), key_.c_str(), 2.0) == AH_OK) return true;
            json d = api_->retrieve(id_);
            std::string st = d.value("status", "");
            if (st == "shutdown" || st == "failure")
                throw std::runtime_error("Runloop devbox " + id_ + " stopped before its host answered (" + st + ": " +
                                         d.value(st == "failure" ? "failure_reason" : "shutdown_reason", std::string("?")) + ")");
            return false;
        });
    }

    void shutdown_quietly() noexcept {
        try {
            if (api_ && !id_.empty()) api_->lifecycle(id_, "shutdown");
        } catch (const std::exception &e) {
            log(AH_LOG_WARNING, std::string("could not shut down Runloop devbox ") + id_ + ": " + e.what());
        }
        id_.clear();
    }

    std::string record_path() const {
        return kept_alive_record_path(config_string("core.state_dir", "/tmp"), "runloop", info().session_id);
    }
    std::optional<json> load_record() const {
        std::ifstream in(record_path());
        if (!in) return std::nullopt;
        json j = json::parse(in, nullptr, false);
        if (!j.is_object() || j.value("devbox_id", "") != id_) return std::nullopt;
        return j;
    }

    std::unique_ptr<runloop::DevboxApi> api_;
    SandboxHostLaunch launch_;
    std::string id_, url_, key_;
    double timeout_s_ = 120;
    bool attached_ = false, kept_ = false;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<RunloopRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("runloop", "0.1.0", create)
