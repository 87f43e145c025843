// Routes actions to the module that provides them, one at a time per session, and checks what comes
// back. Owns the loaded plugin modules.
#pragma once

#include <atomic>
#include <chrono>
#include <utility>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "audit/audit_recorder.hpp"
#include "modules/host_environment.hpp"
#include "modules/image_needs.hpp"
#include "modules/isolation_settings.hpp"
#include "modules/plugin_module.hpp"
#include <actionhost/common/result.hpp>
#include <actionhost/modules/registry.hpp>

namespace actionhost::host {

class StreamHub;
class PolicyStage;

struct RouteResult {
    int http_status = 200;
    nlohmann::json body;  // the host's own answer (an error observation, or {"detail": ...}); null with `text`
    // The plugin's observation text when it is the answer unchanged: sent as it came instead of being
    // serialised again (an observation can be megabytes of command output).
    std::string text;
    bool text_is_error = false;  // `text` is an error observation (inspected on its way through)
    bool denied_by_policy = false;  // the policy stage refused it: it never reached its plugin (metrics' "denied")
    std::string serialised() const;
    // Whether the answer is an error observation (the metrics' "error" outcome; see HostMetrics).
    bool is_error_observation() const;
};

class Router;

// A loaded plugin lent to one HTTP request on one of its routes; the router waits for every lease to end
// before it destroys modules, so a long streamed response never outlives its plugin.
class RouteLease {
  public:
    RouteLease() = default;
    RouteLease(Router *router, PluginModule *module) : router_(router), module_(module) { module_->enter(); }
    RouteLease(RouteLease &&o) noexcept : router_(std::exchange(o.router_, nullptr)), module_(std::exchange(o.module_, nullptr)) {}
    RouteLease &operator=(RouteLease &&) = delete;
    ~RouteLease();
    explicit operator bool() const { return module_ != nullptr; }
    PluginModule &operator*() const { return *module_; }
    PluginModule *operator->() const { return module_; }

  private:
    Router *router_ = nullptr;
    PluginModule *module_ = nullptr;
};

class Router {
  public:
    Router(HostEnvironment &env, modules::ModuleRegistry &registry, StreamHub &streams);
    ~Router();

    // Loads a plugin (and the plugins it requires) now; the error is the refusal line.
    common::Status load(const std::string &name);
    std::vector<std::string> loaded_names() const;
    // Reads which plugins run isolated (host.isolate, host.isolate_timeout_s): before any plugin loads.
    // A bad value stops the host's start with the key named.
    common::Status configure_isolation();
    // Whether `name` was not loaded because the image lacks something its manifest "needs" (the host
    // starts without it; its actions answer an error observation naming the package).
    bool lacks_needs(const std::string &name) const;
    // Every installed plugin's unmet needs, for /server_info (checked on first use, then remembered).
    nlohmann::json unmet_needs();

    // Executes the value of the request's "action" key in `session` ("" = default). `action` is taken
    // apart; a plugin's action leaves it holding the normalised envelope the plugin was given, which the
    // caller releases after answering: freeing the document costs about as much as building it (about 5k
    // instructions by callgrind, 1-2 us of an `echo hi`), time the client need not wait for.
    // Every action goes in the audit trail when the host keeps one (set_audit): a "started" record
    // before it is routed, a "finished" one with its outcome (host/audit/audit_recorder.hpp). `peer`:
    // the HTTP peer's address, for the trail's "who".
    RouteResult execute(nlohmann::json &action, const std::string &session, const std::string &request_id,
                        const std::string &peer = "");
    // The trail's recorder (owned by the host core; outlives the router), or nullptr: none kept.
    void set_audit(audit::AuditRecorder *recorder) { audit_ = recorder; }

    // The plugin answering HTTP `path` (declared in its manifest's provides.http_routes and answered by
    // its route extension), loading it first when its manifest says "load_on_route"; empty when none
    // does or the host is stopping.
    RouteLease route_owner(const std::string &path);

    const modules::ModuleRegistry &registry() const { return registry_; }

    // The policy stage every action passes before it runs (nullptr: none configured). Set before serving;
    // owned by the caller, outliving the router's use.
    void set_policy(PolicyStage *policy) { policy_ = policy; }

    // What the host answers on `path` while the plugin declaring it is not loaded, or nullptr.
    const nlohmann::json *route_fallback(const std::string &path) const { return registry_.route_fallback(path); }

    // Stops every plugin (running actions should return promptly), waits up to `grace` for running calls,
    // then destroys the modules that have none. A module with a call still running is never destroyed:
    // it is left loaded and alive, logged, and counted in the result (the process should then end
    // without running destructors, see main.cpp). Idempotent.
    size_t shutdown(std::chrono::milliseconds grace = std::chrono::seconds(30));

    // The time the last action started (for /server_info idle_time), seconds since the epoch.
    double last_action_start() const { return last_action_start_.load(); }

    // For GET /metrics: the plugins loaded and those refused (each is tried once: a refusal is kept), and
    // the sessions that have run an action.
    std::vector<std::string> refused_names() const;
    size_t session_count();

  private:
    friend class RouteLease;
    void end_lease();
    PluginModule *route_module(const std::string &path);
    struct Session {
        std::mutex run_mu;        // one action at a time
        std::mutex interrupt_mu;  // one interrupt beside it (see Router::execute)
        std::mutex cwd_mu;
        std::string cwd;
    };
    std::shared_ptr<Session> session(const std::string &name);
    common::Result<PluginModule *> loaded(const std::string &name);  // loading it when needed
    RouteResult route_action(nlohmann::json &action, const std::string &session, const std::string &request_id,
                             audit::ActionAudit &audit);
    bool disabled(const modules::Manifest &m);
    RouteResult unavailable(const modules::Manifest &m, const std::string &why);
    RouteResult run_plugin(PluginModule &module, const std::string &action, const nlohmann::json &envelope,
                           const std::string &session_name, Session &session, const std::string &request_id,
                           bool beside);
    common::Status load_locked(const std::string &name, std::vector<std::string> &chain);

    HostEnvironment &env_;
    modules::ModuleRegistry &registry_;
    StreamHub &streams_;
    mutable std::mutex modules_mu_;
    std::map<std::string, std::unique_ptr<PluginModule>> modules_;
    std::map<std::string, std::string> refused_;  // name → why, so a broken module is not retried per action
    std::vector<std::string> lacking_needs_;      // refused for an unmet image need
    ImageNeeds needs_;
    IsolationConfig isolation_;
    std::mutex sessions_mu_;
    std::map<std::string, std::shared_ptr<Session>> sessions_;
    std::mutex inflight_mu_;
    std::condition_variable inflight_cv_;
    int inflight_ = 0;
    bool stopping_ = false;
    std::atomic<double> last_action_start_{0};
    PolicyStage *policy_ = nullptr;
    audit::AuditRecorder *audit_ = nullptr;
};

}  // namespace actionhost::host
