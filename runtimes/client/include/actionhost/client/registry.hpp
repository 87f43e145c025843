// The runtime backends on the search path, read from their manifest.json files without loading code
// (metadata without running code: docs/design.md, The C ABI), and the resolution of `[core] runtime`
// to one of them, with OpenHands' names and error text (get_runtime_cls).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace actionhost::client {

struct RuntimeModule {
    std::string name;          // module name (manifest "name")
    std::string version;
    std::string abi_version;   // "1.0.0"
    std::string library_path;  // absolute path of the .so
    std::string manifest_path;  // the manifest.json it was read from (the loader reads it again)
    std::string description;
    std::vector<std::string> runtimes;  // provides.runtimes
    // "plugin_dirs": true — the backend shows its host the client machine's plugin directories
    // (RuntimeOptions::plugin_dirs) at the same paths, read-only where the host runs apart.
    bool plugin_dirs = false;
    // "network_keys": the [sandbox] network keys the backend takes (maps, or refuses with its reason):
    // names after "sandbox." (modules::kNetworkKeys); the client refuses the others when set.
    std::vector<std::string> network_keys;
    // "sandbox_keys": the backend-specific [sandbox] keys it honours (names after "sandbox."); the client
    // refuses the others of config_schema's backend_sandbox_keys() when set.
    std::vector<std::string> sandbox_keys;
    bool honours_sandbox_key(const std::string &name) const {
        for (const auto &k : sandbox_keys)
            if (k == name) return true;
        return false;
    }
    bool takes_network_key(const std::string &name) const {
        for (const auto &k : network_keys)
            if (k == name) return true;
        return false;
    }
};

class RuntimeRegistry {
  public:
    // Reads <dir>/*/manifest.json of every directory, in order; the first provider of a name wins.
    // Manifests of another kind are skipped; unreadable or malformed ones (refused by the same checks as
    // the host's plugin manifests) are skipped with a warning.
    static RuntimeRegistry scan(const std::vector<std::string> &dirs);

    // The module providing `runtime_name` ("eventstream" is OpenHands' alias of "docker"). Throws
    // RuntimeNotFound("Runtime <name> not supported, known are: [...]").
    const RuntimeModule &resolve(const std::string &runtime_name) const;
    // Every runtime name provided, sorted.
    std::vector<std::string> known() const;
    const std::vector<RuntimeModule> &modules() const { return modules_; }
    const std::vector<std::string> &warnings() const { return warnings_; }

  private:
    std::vector<RuntimeModule> modules_;
    std::map<std::string, size_t> by_runtime_;
    std::vector<std::string> warnings_;
};

// The runtime search path: <install_dir>/lib/actionhost/runtimes, then `[core] runtime_dirs`, then
// $ACTIONHOST_RUNTIME_PATH — modules::module_search_path, the plugins' rule (the variable is ignored in
// a process with elevated privileges).
std::vector<std::string> runtime_search_path(const std::string &install_dir, const std::vector<std::string> &config_dirs);

// The install prefix this process runs from: the directory above bin/ of /proc/self/exe when it holds
// lib/actionhost, else above lib/ of the client library itself, else $ACTIONHOST_INSTALL_DIR, else "".
std::string detect_install_dir();

}  // namespace actionhost::client
