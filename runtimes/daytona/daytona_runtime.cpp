// `daytona`: the host in a Daytona sandbox, as OpenHands' DaytonaRuntime provisions one: a public
// sandbox labelled OpenHands_SID=<sid> with OpenHands' environment, the host started in toolbox session
// `action-execution-server`, reached through the preview URL of port 4444. Attach to the sandbox
// labelled with the session (starting it when stopped); pause/resume = stop/start (the host is started
// again after a start); close = stop, as OpenHands (its workspace stays for a later session), or delete
// with DAYTONA_DELETE_ON_CLOSE=true / [daytona] delete_on_close; keep_runtime_alive keeps it as it is
// (stopped unless pause_closed_runtimes = false). sandbox.idle_timeout is Daytona's autoStopInterval
// (sandbox_lifetime.hpp); a sandbox it stopped is started again, with its host, on the next request.
#include <actionhost/ext/runtime_recovery.h>

#include <actionhost/runtime_support/cloud_backend.hpp>
#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "sandbox_api.hpp"
#include "sandbox_lifetime.hpp"
#include <actionhost/common/json_write.hpp>

namespace {

using namespace actionhost::runtime_support;
using nlohmann::json;

const char *kSession = "action-execution-server";

class DaytonaRuntime : public CloudBackend {
  public:
    using CloudBackend::CloudBackend;
    ~DaytonaRuntime() override {
        if (!id_.empty() && !kept_) delete_quietly();
    }

    void connect() override {
        // The intervals before anything is asked of Daytona: a refusal leaves nothing behind.
        const char *no_stop = std::getenv("DAYTONA_DISABLE_AUTO_STOP");
        const json intervals = daytona::auto_intervals(
            lifetime_request([this](const std::string &key) { return config(key); }),
            no_stop && std::string(no_stop) == "true");
        open_api();
        launch_ = sandbox_host("daytona", 4444);
        key_ = launch_.session_api_key;
        timeout_s_ = config_number("daytona.init_timeout", 120);

        status(AH_STATUS_STARTING_RUNTIME, "looking for the Daytona sandbox of session " + std::string(info().session_id));
        json found = api_->list_by_labels(labels());
        if (found.size() > 1)
            throw std::runtime_error("Daytona: " + std::to_string(found.size()) + " sandboxes are labelled OpenHands_SID=" +
                                     info().session_id + "; expected at most one");
        bool start_server = true;
        if (found.size() == 1) {
            start_server = attach(found[0]);
        } else {
            create(intervals);
        }
        try {
            if (start_server) run_server();
            json preview = api_->preview_url(id_, launch_.port);
            url_ = preview.value("url", "");
            if (url_.empty()) throw std::runtime_error("Daytona API: preview-url of port " + std::to_string(launch_.port) + " has no url");
            status(AH_STATUS_STARTING_RUNTIME, "waiting for the host at " + url_);
            wait_host();
        } catch (...) {
            if (!attached_) delete_quietly();
            throw;
        }
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    Endpoint endpoint() override { return {url_, key_, id_}; }

    // Daytona has no suspend that keeps processes: a stop ends them, a start runs the host again (the
    // workspace files persist, the bash session does not).
    void pause() override {
        api_->stop(id_);
        wait_state({"stopped"}, "stop");
    }

    void resume() override {
        api_->start(id_);
        wait_state({"started"}, "start");
        run_server();
        wait_host();
    }

    // The auto-stop as Daytona keeps it (the sandbox's DTO), connected or for the session's kept
    // sandbox. Daytona keeps no lifetime, so there is no end to move.
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override {
        const json s = session_sandbox();
        return actionhost::common::dump_json(kept_lifetime_json(daytona::kept_lifetime(s), unix_now()));
    }
    std::string extend_lifetime(long long) override {
        throw Unsupported("Daytona cannot extend a sandbox's lifetime: it keeps none, only an idle auto-stop (autoStopInterval)");
    }

    // A request the preview URL refused: a sandbox the auto-stop stopped is started again with its host
    // and the request retried once (its files are kept, its processes and shell state are not); one
    // that is gone is reported as gone.
    bool handles_sandbox_errors() const override { return true; }
    int on_sandbox_error(int http_status) override {
        if (http_status != 400 && http_status != 404 && http_status != 502 && http_status != 503 && http_status != 504)
            return AH_RECOVERY_REPORT;
        auto r = api_->get_reply(id_);
        if (r.status == 404) throw std::runtime_error("Daytona sandbox " + id_ + " is gone (deleted)");
        std::string state = r.json().value("state", "");
        if (state == "stopping") state = wait_state({"stopped"}, "stop");
        if (state == "stopped" || state == "archived") {
            log(AH_LOG_INFO, "Daytona sandbox " + id_ + " is " + state + ": starting it again for the request");
            resume();
            return AH_RECOVERY_RETRY;
        }
        if (state == "destroyed" || state == "destroying" || state == "error" || state == "build_failed")
            throw std::runtime_error("Daytona sandbox " + id_ + " is " + state);
        return AH_RECOVERY_REPORT;
    }

    void close() override {
        if (id_.empty()) return;
        if (config_bool("sandbox.keep_runtime_alive", false)) {
            kept_ = true;
            if (config_bool("sandbox.pause_closed_runtimes", true)) {
                api_->stop(id_);
                wait_state({"stopped"}, "stop");
            }
            return;
        }
        std::string id = id_;
        const std::string delete_env = setting("DAYTONA_DELETE_ON_CLOSE", "daytona.delete_on_close", "false");
        if (delete_env == "true" || delete_env == "1") {
            id_.clear();
            api_->remove(id);
            return;
        }
        kept_ = true;  // stopped, not deleted: nothing for the destructor to clean up
        api_->stop(id);
        wait_state({"stopped"}, "stop");
        id_.clear();
    }

  private:
    json labels() const { return json{{"OpenHands_SID", info().session_id}}; }

    void open_api() {
        if (api_) return;
        std::string key = credential("DAYTONA_API_KEY", "core.daytona_api_key", "export your Daytona API key as DAYTONA_API_KEY");
        std::string url = setting("DAYTONA_API_URL", "core.daytona_api_url", "");
        if (url.empty()) url = setting("DAYTONA_SERVER_URL", "daytona.api_url", "https://app.daytona.io/api");  // deprecated alias
        api_ = std::make_unique<daytona::SandboxApi>(host(), check_base_url("DAYTONA_API_URL", url), key);
        target_ = setting("DAYTONA_TARGET", "core.daytona_target", "eu");
    }

    // The DTO of this session's sandbox: the connected one, else the one labelled with the session.
    json session_sandbox() {
        open_api();
        if (!id_.empty()) return api_->get(id_);
        json found = api_->list_by_labels(labels());
        if (found.size() != 1)
            throw std::runtime_error("Daytona: " + std::to_string(found.size()) + " sandboxes are labelled OpenHands_SID=" +
                                     info().session_id + "; expected one");
        return found[0];
    }

    // Returns whether the host must be started (the sandbox was not running).
    bool attach(const json &sandbox) {
        id_ = sandbox.value("id", "");
        attached_ = true;
        if (sandbox.contains("env") && sandbox["env"].is_object()) key_ = sandbox["env"].value("SESSION_API_KEY", key_);
        std::string state = sandbox.value("state", "");
        status(AH_STATUS_STARTING_RUNTIME, "attaching to Daytona sandbox " + id_ + " (" + state + ")");
        if (state == "started") return false;
        if (state == "stopping") state = wait_state({"stopped"}, "stop");
        if (state == "stopped" || state == "archived") {
            api_->start(id_);
            wait_state({"started"}, "start");
            return true;
        }
        throw std::runtime_error("Daytona sandbox " + id_ + " of this session is '" + state + "': cannot attach");
    }

    void create(const json &intervals) {
        json env = json::object();
        for (const auto &[k, v] : launch_.env) env[k] = v;
        json body = {{"env", env}, {"labels", labels()}, {"public", true}, {"target", target_}};
        for (const auto &[field, value] : intervals.items()) body[field] = value;
        std::string snapshot = config_string("daytona.snapshot", config_string("sandbox.runtime_container_image", ""));
        if (!snapshot.empty()) body["snapshot"] = snapshot;
        status(AH_STATUS_STARTING_RUNTIME, "creating a Daytona sandbox");
        json s = api_->create(body);
        id_ = s.value("id", "");
        if (id_.empty()) throw std::runtime_error("Daytona API: create sandbox returned no id: " + actionhost::common::dump_json(s));
        try {
            wait_state({"started"}, "start");
        } catch (...) {
            delete_quietly();
            throw;
        }
    }

    // Polls the sandbox every 100 ms (as the SDK does) until it is in one of `wanted`; error and
    // build_failed end the wait with the sandbox's errorReason.
    std::string wait_state(const std::vector<std::string> &wanted, const std::string &what) {
        std::string state;
        poll_until("Daytona sandbox " + id_ + " did not " + what, config_number("daytona.state_timeout", 60), 0.1, [&] {
            json s = api_->get(id_);
            state = s.value("state", "");
            if (state == "error" || state == "build_failed")
                throw std::runtime_error("Daytona sandbox " + id_ + " is in state " + state + ": " +
                                         s.value("errorReason", std::string("no reason given")));
            return std::find(wanted.begin(), wanted.end(), state) != wanted.end();
        });
        return state;
    }

    void run_server() {
        status(AH_STATUS_STARTING_RUNTIME, "starting the host in Daytona sandbox " + id_);
        cmd_id_ = api_->run_in_session(id_, kSession,
                             "mkdir -p " + shell_quote(launch_.workspace) + " && cd " + shell_quote(launch_.workspace) +
                                 " && exec " + shell_join(launch_.argv));
    }

    // /alive through the preview URL (its proxy answers 502 until the host listens), watching the
    // sandbox between tries.
    void wait_host() {
        poll_until("the host at " + url_ + " did not answer /alive", timeout_s_, 0, [&] {
            if (host()->wait_alive(host(), url_.c_str(), key_.c_str(), 2.0) == AH_OK) return true;
            std::string state = api_->get(id_).value("state", "");
            if (state != "started") throw std::runtime_error("Daytona sandbox " + id_ + " is " + state + " before its host answered");
            if (cmd_id_.empty()) return false;
            if (auto code = api_->command_exit_code(id_, kSession, cmd_id_)) {
                std::string logs = api_->command_logs(id_, kSession, cmd_id_);
                if (logs.size() > 2000) logs = logs.substr(logs.size() - 2000);
                throw std::runtime_error("the host in Daytona sandbox " + id_ + " exited with code " + std::to_string(*code) +
                                         " before answering. Its output:\n" + logs);
            }
            return false;
        });
    }

    void delete_quietly() noexcept {
        try {
            if (api_ && !id_.empty()) api_->remove(id_);
        } catch (const std::exception &e) {
            log(AH_LOG_WARNING, "could not delete Daytona sandbox " + id_ + ": " + e.what());
        }
        id_.clear();
    }

    std::unique_ptr<daytona::SandboxApi> api_;
    SandboxHostLaunch launch_;
    std::string id_, url_, key_, target_, cmd_id_;
    double timeout_s_ = 120;
    bool attached_ = false, kept_ = false;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<DaytonaRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("daytona", "0.1.0", create)
