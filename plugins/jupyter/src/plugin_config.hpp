// The jupyter plugin's settings, read once through the host's config_get (`--set KEY=VALUE`, then the
// host's environment):
//   ACTIONHOST_KERNEL_CMD            kernel command (JSON array or words; {connection_file} placeholder)
//                                    default: /usr/bin/python3 -m ipykernel_launcher -f {connection_file},
//                                    with the python3 that met the manifest's need ("needs.python3")
//   ACTIONHOST_KERNEL_INTERRUPT_MODE signal (default: SIGINT to the kernel's process group) | message
//                                    (interrupt_request on the control channel)
//   ACTIONHOST_JUPYTER_TIMEOUT       cell timeout in seconds when the action has none (default 120)
//   ACTIONHOST_KERNEL_START_TIMEOUT  seconds a kernel may take to answer after spawn (default 60)
//   ACTIONHOST_JUPYTER_EAGER         1 (default): start the default session's kernel in the background at
//                                    init; 0: start every kernel on its first cell
//   ACTIONHOST_JUPYTER_MAX_SESSIONS  most kernels at once, one per named session (default 16)
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::jupyter {

struct PluginConfig {
    std::vector<std::string> kernel_command;
    bool interrupt_by_message = false;
    double default_timeout_s = 120.0;
    double start_timeout_s = 60.0;
    bool eager_start = true;
    size_t max_sessions = 16;
    // Module directories and modules to import into every kernel, offered by the plugins loaded at start
    // (the host's actionhost.python_path and actionhost.python_startup_imports).
    std::vector<std::string> python_path;
    std::vector<std::string> python_startup_imports;
};

using ConfigLookup = std::function<std::optional<std::string>(const char *key)>;

// Reads the settings; a malformed value is reported through `problems` and replaced by the default.
PluginConfig read_plugin_config(const ConfigLookup &get, std::vector<std::string> &problems);

}  // namespace actionhost::jupyter
