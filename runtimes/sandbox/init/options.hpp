// ah-sandbox-init's command line (the sandbox backend builds it; see main.cpp for the flow).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sandbox {

struct Options {
    std::string root_mount;        // an empty outside directory the new root is assembled on
    std::string workspace;         // outside directory bind-mounted read-write
    std::string workspace_target = "/workspace";  // where it appears inside
    std::vector<std::string> ro_binds;  // extra outside paths made visible read-only at the same path
    std::vector<std::pair<std::string, std::string>> rw_binds;  // outside:inside, read-write
    std::string socket_path;       // listen here (outside) and forward to the host's TCP port inside
    int forward_port = 0;          // the host's port on the sandbox's loopback
    std::string cgroup_name;       // "" → no cgroup
    long memory_mb = 0, pids = 0;  // 0 = no limit
    double cpus = 0;
    bool network = false;          // share the caller's network namespace
    bool seccomp = true;
    std::string hostname = "sandbox";
    std::string home;              // inside home directory given a private tmpfs ("" → none)
    std::vector<std::string> command;  // argv of the process to run as the sandbox's main process
};

// Throws std::invalid_argument with a usage message.
Options parse_options(int argc, char **argv);

}  // namespace sandbox
