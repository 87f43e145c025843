// The host's command line: OpenHands' action_execution_server arguments plus a few of our own, parsed
// with CLI11. Flags that belong to a plugin (OpenHands' --no-enable-browser, say) are declared by that
// plugin's manifest ("options"): the first pass keeps every flag it does not know, in order, and
// apply_declared_options resolves them once the manifests are read.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <actionhost/common/result.hpp>
#include <actionhost/modules/manifest.hpp>

namespace actionhost::host {

struct Options {
    int port = -1;                         // PORT (0 = ephemeral, see port_file)
    std::string working_dir;               // --working-dir
    std::vector<std::string> plugins;      // --plugins NAME... (plugins whose manifest says "load": "always" come too)
    std::string username = "openhands";    // --username
    int user_id = 1000;                    // --user-id
    std::string bind_host = "0.0.0.0";     // --host (OpenHands binds every interface)
    std::string port_file;                 // --port-file: the bound port is written here once serving
    std::vector<std::string> plugin_dirs;  // --plugin-dir: extra module directories, after the install tree
    std::map<std::string, std::string> settings;  // --set KEY=VALUE (config_get)
    std::vector<std::string> plugin_flags;  // flags left for the manifests' options, with their values
    bool list_plugins = false;
    bool help = false;
    bool version = false;
};

// The options, or why the command line is wrong (shown before the usage text).
common::Result<Options> parse_options(const std::vector<std::string> &args);

// Resolves `flags` (Options::plugin_flags) against the options the manifests declare; what they set goes
// into `declared` (read before --set and the environment). A flag no installed manifest declares is
// ignored and listed in `ignored` (with the words after it up to the next flag, its value if it had one):
// OpenHands' clients pass their plugins' flags whether or not an image holds those plugins
// (--no-enable-browser where there is no browser at all). Fails with the error of a declared flag used
// wrongly (a missing value).
common::Status apply_declared_options(const std::vector<std::string> &flags, const std::vector<const modules::Manifest *> &modules,
                                   std::map<std::string, std::string> &declared, std::vector<std::string> &ignored);

// The usage text; `modules` add the options their manifests declare.
std::string usage_text(const std::vector<const modules::Manifest *> &modules = {});

}  // namespace actionhost::host
