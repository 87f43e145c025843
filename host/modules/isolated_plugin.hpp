// Out-of-process plugins ("isolation": "process" in a manifest, or host.isolate): the plugin runs in a
// worker process of its own (`actionhost --plugin-worker 3`) and the host holds a proxy ah_plugin_t in its
// place, so the router, the routes and PluginModule use it as any plugin, through the same C ABI
// (docs/design.md, "Isolated plugins"). The proxy forwards `execute` and the http_routes extension's
// `handle` to the worker as messages tagged with a call id over a socketpair (sys/worker_wire.hpp) and
// relays what the worker's plugin sends for that call (log lines, partial output, the observation) to
// the plugin's real host services. A worker that dies answers every call it was running with an error
// (the signal or exit status named); a call that outlives its deadline has the worker killed; either
// way the next call starts a new one — up to a restart budget, after which the plugin is unavailable
// until the host restarts.
//
// Threads: execute and handle from any number of host threads at once (the worker runs each on its own
// thread, as the host would); one reader thread per worker dispatches the worker's messages by call id.
#pragma once

#include <actionhost/plugin.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::host {

struct IsolationSettings {
    std::string program;        // the actionhost executable, run as `program --plugin-worker 3`
    std::string manifest_path;  // the plugin's manifest.json, which the worker loads with the real loader
    std::string plugin_name;
    // What the worker's host services are built from: {"working_dir", "username", "install_dir", "version",
    // "user_id"} and the settings snapshot config_get answers (HostEnvironment::settings_for_policy_worker).
    nlohmann::json facts, settings;
    // A call's deadline: its action's "timeout" where it has one, else this; plus `grace`, the time a
    // plugin takes to answer once its own timeout has passed.
    std::chrono::seconds default_timeout{600};
    std::chrono::seconds grace{5};
    std::chrono::seconds start_timeout{60};  // spawn, load and init of the plugin
    // Restarts allowed within `restart_window`; one more and the plugin stays unavailable.
    int restart_budget = 5;
    std::chrono::seconds restart_window{60};
};

// The proxy plugin, bound to `host` (the plugin's real host services, borrowed until destroy). Its init
// starts the worker and loads the plugin there; it fails (set_error(host, NULL, why)) as the plugin's
// own would. Never NULL.
ah_plugin_t *create_isolated_plugin(const ah_host_t *host, IsolationSettings settings);

// The worker's side: reads the init message from `fd`, loads the plugin, runs every call the host
// forwards until the host closes the socket. Returns the process's exit code.
int run_plugin_worker(int fd);

}  // namespace actionhost::host
