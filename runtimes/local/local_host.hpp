// Starting and stopping one local host process: shared by the `local` backend and its warm pool.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace actionhost::local_runtime {

// A host's run directory: <TMPDIR>/ah-local-XXXXXX (see sweep_dead_hosts).
inline constexpr const char *kRunDirPrefix = "ah-local-";

// Everything a host start depends on, computed from a runtime's configuration.
struct LaunchPlan {
    std::string install_dir;
    std::string workspace_base;  // "" → a fresh temporary workspace per host
    std::vector<std::string> args;  // host arguments after the port (without --working-dir/--port-file)
    std::map<std::string, std::string> env;  // the complete environment
    bool die_with_parent = true;
    bool keep = false;  // a kept-alive host: what it leaves when it dies is taken over, not swept

    // Hosts started from plans with equal keys are interchangeable: the key leaves out what is
    // per-session (SESSION_API_KEY, OPENHANDS_SESSION_ID).
    std::string pool_key() const;
};

struct LocalHost {
    pid_t pid = -1;
    std::string url, key, run_dir, workspace, temp_workspace;
};

// Starts a host and waits until it listens (its port file). `on_spawned` (may be empty) learns the pid
// as soon as it exists. On failure nothing is left behind and the error is thrown.
LocalHost launch_host(const LaunchPlan &plan, double timeout_s, const std::function<void(pid_t)> &on_spawned = {});
// Stops the host's process group and removes its run directory and temporary workspace.
void stop_host(LocalHost &host);

// The run directory <TMPDIR>/ah-local-XXXXXX is owned by its host (runtime_support owned_dir.hpp) and
// names its temporary workspace <TMPDIR>/openhands-workspace-XXXXXX: when the host dies unstopped (its
// client killed, Ctrl-C) the next sweep removes both — except for a kept-alive host, whose workspace the
// session's next start takes over (local_runtime.cpp).
void sweep_dead_hosts();

}  // namespace actionhost::local_runtime
