// The host's core, assembled in one place for every way it runs: the `actionhost` server (main.cpp) and
// the `cli` runtime, which serves the same API inside a client process. Given the parsed command line it
// reads the manifests, resolves the options they declare, sets up the configuration, the path policy,
// the limits, the router and the API context, and loads the plugins to start with.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actions/policy_stage.hpp"
#include "actions/router.hpp"
#include "cli/options.hpp"
#include "http/api.hpp"
#include "http/stream_hub.hpp"
#include "modules/host_environment.hpp"
#include "ops/action_metrics.hpp"
#include "ops/log_ring.hpp"
#include "sys/cgroup_stats.hpp"
#include <actionhost/modules/registry.hpp>
#include "terminal/terminal_registry.hpp"

namespace actionhost::host {

struct HostCoreSettings {
    Options options;              // the command line (working_dir resolved, user set up)
    std::string install_dir;      // the prefix the host runs from (lib/actionhost/plugins under it)
    int user_id = 1000;           // the uid actually used (user set-up may change --user-id)
    std::map<std::string, std::string> extra_settings;  // set by the embedder (the cli runtime's shell mode)
    common::LogSink log_sink;  // where log lines go instead of stderr
    // The audit channel the sandbox's supervisor gave (ACTIONHOST_AUDIT_FD), taken over; -1: no trail.
    int audit_fd = -1;
};

class HostCore {
  public:
    // Reads the manifests and resolves the declared options; loads nothing yet. Throws
    // std::invalid_argument for a command line the manifests do not allow (an unknown plugin or flag).
    explicit HostCore(HostCoreSettings settings);
    ~HostCore();  // shutdown()

    // Loads the plugins to start with: every plugin whose manifest says "load": "always", then those of
    // --plugins. Fails with the first refusal. Thread: any one, once.
    common::Status load_start_plugins();
    // The plugins load_start_plugins loads, in order (the value of actionhost.plugins).
    const std::vector<std::string> &start_plugins() const { return start_plugins_; }

    // Answers one request of the API. Thread: any, concurrently.
    void handle(common::http::Request &req, common::http::Response &resp) { handle_api_request(*api_, req, resp); }

    // Ends every plugin (ACTIONHOST_SHUTDOWN_GRACE_SECONDS for their running calls). Returns the number of
    // calls still running: their plugins were left alive, and the process must not run destructors.
    size_t shutdown();

    // The named terminals of GET /terminal (null until enable_terminals()).
    TerminalRegistry *terminals() { return terminals_.get(); }
    // Serves GET /terminal and the web view (/ui): the `actionhost` server does, the in-process cli
    // runtime (no socket to upgrade, nobody to watch) does not.
    void enable_terminals();

    HostEnvironment &env() { return *env_; }
    StreamHub &streams() { return streams_; }
    const modules::ModuleRegistry &registry() const { return registry_; }
    const std::string &session_api_key() const { return session_key_; }

  private:
    std::vector<std::string> start_plugins_;
    std::string session_key_;
    modules::ModuleRegistry registry_;
    StreamHub streams_;
    LogRing log_ring_;  // before env_: it logs into it
    std::unique_ptr<ActionMetrics> action_metrics_;
    OwnCgroups cgroups_;
    std::unique_ptr<HostEnvironment> env_;
    std::unique_ptr<PolicyStage> policy_;  // before router_: destroyed after it
    std::unique_ptr<audit::AuditRecorder> audit_;  // before the router, which records through it
    std::unique_ptr<Router> router_;
    std::unique_ptr<ApiContext> api_;
    std::unique_ptr<TerminalRegistry> terminals_;
    bool shut_down_ = false;
};

}  // namespace actionhost::host
