// `remote`: the host in a sandbox of an OpenHands Remote Runtime API server, driven as OpenHands'
// RemoteRuntime drives it: reuse a running runtime of the session or resume a
// paused one, else (build the image and) /start one; wait for pod_status `ready` and /alive; pause,
// resume, stop; keep_runtime_alive + pause_closed_runtimes on close; 404/502/504 from the sandbox URL =
// disconnected, 503 = paused (resumed and retried when keep_runtime_alive).
#include <actionhost/ext/runtime_recovery.h>

#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/host_bundle.hpp>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "image_build.hpp"
#include "remote_api.hpp"
#include <actionhost/common/json_write.hpp>

namespace {

using namespace actionhost::runtime_support;
using namespace remote;
using nlohmann::json;

const int kServerPort = 60000;  // OpenHands' action server port inside a remote sandbox

class RemoteRuntime : public Backend {
  public:
    using Backend::Backend;
    ~RemoteRuntime() override {
        // Destroyed after a failed connect or without close: never leave a runtime we started behind.
        if (api_ && !runtime_id_.empty() && !closed_ && started_here_ && !config_bool("sandbox.keep_runtime_alive", false)) {
            try {
                stop_runtime();
            } catch (...) {
            }
        }
    }

    void connect() override {
        open_api();
        status(AH_STATUS_STARTING_RUNTIME, "asking " + api_->base_url() + " for session " + info().session_id);
        if (reuse_existing()) return;
        start_new();
    }

    Endpoint endpoint() override { return {url_, key_, runtime_id_}; }

    void pause() override {
        api_->expect("POST", "/pause", {{"runtime_id", runtime_id_}}, "pause runtime " + runtime_id_);
    }
    void resume() override {
        api_->expect("POST", "/resume", {{"runtime_id", runtime_id_}}, "resume runtime " + runtime_id_);
        wait_until_ready();
    }

    void close() override {
        if (!api_ || runtime_id_.empty() || closed_) return;
        closed_ = true;
        if (config_bool("sandbox.keep_runtime_alive", false)) {
            if (config_bool("sandbox.pause_closed_runtimes", true))
                api_->expect("POST", "/pause", {{"runtime_id", runtime_id_}}, "pause runtime " + runtime_id_);
            return;
        }
        stop_runtime();
    }

    bool handles_sandbox_errors() const override { return true; }
    int on_sandbox_error(int http_status) override {
        if (http_status == 404 || http_status == 502 || http_status == 504)
            throw std::runtime_error("the sandbox URL " + url_ + " answered HTTP " + std::to_string(http_status) + " (runtime " +
                                     runtime_id_ + " is gone or unreachable)");
        if (http_status != 503) return AH_RECOVERY_REPORT;
        // 503: the runtime is paused. Only a kept-alive runtime is brought back.
        if (!config_bool("sandbox.keep_runtime_alive", false))
            throw std::runtime_error("the sandbox URL " + url_ + " answered HTTP 503 (runtime " + runtime_id_ +
                                     " is paused and keep_runtime_alive is off)");
        log(AH_LOG_INFO, "runtime " + runtime_id_ + " answered 503: resuming it");
        resume();
        return AH_RECOVERY_RETRY;
    }

  private:
    void open_api() {
        std::string key = config_string("sandbox.api_key", "");
        if (key.empty())
            throw std::runtime_error("the remote runtime needs an API key: set sandbox.api_key in config.toml or SANDBOX_API_KEY");
        std::string url = config_string("sandbox.remote_runtime_api_url", "http://localhost:8000");
        RetryPolicy policy;
        policy.retry_network_errors = config_bool("sandbox.remote_runtime_enable_retries", true);
        policy.timeout_s = config_number("sandbox.remote_runtime_api_timeout", 180);
        policy.min_wait_s = config_number("remote.retry_min_wait_s", 4);
        policy.max_wait_s = std::max(policy.min_wait_s, config_number("remote.retry_max_wait_s", 60));
        try {
            api_ = std::make_unique<RemoteApi>(host(), url, key, policy);
        } catch (const std::invalid_argument &e) {
            throw std::runtime_error("sandbox.remote_runtime_api_url: " + std::string(e.what()));
        }
    }

    // GET /sessions/{sid}: reuse `running`, resume `paused` (starting anew when that fails).
    bool reuse_existing() {
        ApiReply r = api_->call("GET", "/sessions/" + url_encode(info().session_id));
        if (r.status == 404) return false;
        if (r.status < 200 || r.status >= 300)
            throw RemoteApiError("Remote Runtime API: GET /sessions/" + std::string(info().session_id) + " failed with HTTP " +
                                     std::to_string(r.status) + ": " + detail_of(r.body),
                                 r.status);
        if (!r.json.is_object())
            throw RemoteApiError("Remote Runtime API: GET /sessions/" + std::string(info().session_id) + " answered a body that is not JSON: " +
                                     detail_of(r.body),
                                 r.status);
        std::string state = r.json.value("status", "");
        if (state != "running" && state != "paused") return false;  // stopped / unknown → start a new one
        take_runtime(r.json);
        if (state == "paused") {
            status(AH_STATUS_STARTING_RUNTIME, "resuming paused runtime " + runtime_id_);
            ApiReply resumed = api_->call("POST", "/resume", actionhost::common::dump_json(json{{"runtime_id", runtime_id_}}));
            if (resumed.status < 200 || resumed.status >= 300) {
                log(AH_LOG_WARNING, "resuming " + runtime_id_ + " failed (HTTP " + std::to_string(resumed.status) + "): starting a new runtime");
                runtime_id_.clear();
                return false;
            }
        } else {
            status(AH_STATUS_STARTING_RUNTIME, "reusing running runtime " + runtime_id_);
        }
        wait_until_ready();
        status(AH_STATUS_RUNTIME_STARTED, url_);
        return true;
    }

    void take_runtime(const json &j) {
        runtime_id_ = j.value("runtime_id", "");
        url_ = j.value("url", "");
        if (runtime_id_.empty() || url_.empty())
            throw RemoteApiError("Remote Runtime API: the answer lacks runtime_id or url: " + actionhost::common::dump_json(j), 200);
        while (!url_.empty() && url_.back() == '/') url_.pop_back();
        if (j.contains("session_api_key") && j["session_api_key"].is_string()) key_ = j["session_api_key"].get<std::string>();
        api_->set_session_api_key(key_);
    }

    void start_new() {
        std::string image = config_string("sandbox.runtime_container_image", "");
        if (image.empty()) {
            status(AH_STATUS_BUILDING_RUNTIME, "looking for the runtime image");
            BuildSettings b;
            b.bundle_dir = find_host_bundle(info().install_dir).dir;
            b.base_image = config_string("sandbox.base_container_image", "");
            b.version = "0.1.0";
            b.poll_interval_s = config_number("remote.build_poll_interval_s", 30);
            b.force_rebuild = config_bool("sandbox.force_rebuild_runtime", false);
            image = ensure_runtime_image(*api_, b, [this](const std::string &m) { status(AH_STATUS_BUILDING_RUNTIME, m); });
        }
        int factor = static_cast<int>(config_number("sandbox.remote_runtime_resource_factor", 1));
        if (factor != 1 && factor != 2 && factor != 4 && factor != 8)
            throw std::runtime_error("sandbox.remote_runtime_resource_factor must be 1, 2, 4 or 8 (got " + std::to_string(factor) + ")");

        json command = json::array({std::string(kInstallInImage) + "/bin/actionhost", std::to_string(kServerPort)});
        for (const auto &a : host_args()) command.push_back(a);
        json environment = json::object();
        for (const auto &[k, v] : host_env())
            if (k != "SESSION_API_KEY") environment[k] = v;  // the API issues the session key
        if (config_bool("core.debug", false)) environment["DEBUG"] = "true";
        json body = {{"image", image},
                     {"command", command},
                     {"working_dir", "/"},
                     {"environment", environment},
                     {"session_id", info().session_id},
                     {"resource_factor", factor}};
        std::string runtime_class = config_string("sandbox.remote_runtime_class", "");
        if (runtime_class == "sysbox") body["runtime_class"] = "sysbox-runc";
        else if (runtime_class == "gvisor") body["runtime_class"] = "gvisor";
        else if (!runtime_class.empty())
            throw std::runtime_error("sandbox.remote_runtime_class must be sysbox or gvisor (got '" + runtime_class + "')");

        status(AH_STATUS_STARTING_RUNTIME, "starting a runtime from " + image);
        json started = api_->expect("POST", "/start", body, "start a runtime from " + image);
        take_runtime(started);
        started_here_ = true;
        try {
            wait_until_ready();
        } catch (...) {
            stop_runtime();  // a runtime that never became ready is not left running
            throw;
        }
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    // GET /runtime/{id} until pod_status `ready` and /alive answers (OpenHands: every 2 s up to
    // remote_runtime_init_timeout; we start at 0.1 s and back off to 2 s).
    void wait_until_ready() {
        double timeout = config_number("sandbox.remote_runtime_init_timeout", 180);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        double wait = 0.1;
        std::string last;
        for (int i = 0; i < 100000; ++i) {
            json rt = api_->expect("GET", "/runtime/" + url_encode(runtime_id_), nullptr, "runtime status");
            if (rt.value("runtime_id", runtime_id_) != runtime_id_)
                throw RemoteApiError("Remote Runtime API: /runtime/" + runtime_id_ + " answered for runtime " + rt.value("runtime_id", ""), 200);
            std::string pod = rt.value("pod_status", "");
            for (auto &c : pod) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (pod == "ready") {
                if (host()->wait_alive(host(), url_.c_str(), key_.c_str(), std::min(5.0, std::max(0.5, timeout))) == AH_OK) return;
            } else if (pod == "failed" || pod == "unknown" || pod == "crashloopbackoff") {
                std::string reasons = rt.contains("restart_reasons") ? actionhost::common::dump_json(rt["restart_reasons"]) : "[]";
                throw std::runtime_error("runtime " + runtime_id_ + " failed to start: pod_status " + pod + ", restart_count " +
                                         std::to_string(rt.value("restart_count", 0)) + ", restart_reasons " + reasons);
            } else if (pod != "pending" && pod != "running" && pod != "not found" && pod != last) {
                log(AH_LOG_WARNING, "runtime " + runtime_id_ + ": unexpected pod_status '" + pod + "', still waiting");
            }
            last = pod;
            if (std::chrono::steady_clock::now() >= deadline)
                throw Timeout("runtime " + runtime_id_ + " was not ready within " + std::to_string(static_cast<int>(timeout)) +
                              " s (sandbox.remote_runtime_init_timeout); last pod_status '" + pod + "'");
            std::this_thread::sleep_for(std::chrono::duration<double>(wait));
            wait = std::min(wait * 2, 2.0);
        }
    }

    void stop_runtime() {
        std::string id = runtime_id_;
        runtime_id_.clear();
        api_->expect("POST", "/stop", {{"runtime_id", id}}, "stop runtime " + id);
    }

    std::unique_ptr<RemoteApi> api_;
    std::string runtime_id_, url_, key_;
    bool closed_ = false, started_here_ = false;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<RemoteRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("remote", "0.1.0", create)
