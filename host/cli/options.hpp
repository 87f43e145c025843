// The host's command line: OpenHands' action_execution_server arguments plus a few of our own.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::host {

struct Options {
    int port = -1;                         // PORT (0 = ephemeral, see port_file)
    std::string working_dir;               // --working-dir
    std::vector<std::string> plugins;      // --plugins NAME... (bash is always loaded)
    std::string username = "openhands";    // --username
    int user_id = 1000;                    // --user-id
    bool enable_browser = true;            // --enable-browser / --no-enable-browser
    std::string browsergym_eval_env;       // --browsergym-eval-env
    std::string bind_host = "0.0.0.0";     // --host (OpenHands binds every interface)
    std::string port_file;                 // --port-file: the bound port is written here once serving
    std::vector<std::string> plugin_dirs;  // --plugin-dir: extra module directories, after the install tree
    std::map<std::string, std::string> settings;  // --set KEY=VALUE (config_get)
    bool list_plugins = false;
    bool help = false;
    bool version = false;
};

struct ParseResult {
    std::optional<Options> options;
    std::string error;  // set when options is empty
};

ParseResult parse_options(const std::vector<std::string> &args);
std::string usage_text();

}  // namespace actionhost::host
