// ALL_PLUGINS: the registry of modules found on the search path, built from manifests alone.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actionhost/modules/manifest.hpp"

namespace actionhost::modules {

struct InvalidManifest {
    std::string path;
    std::string error;
};

class ModuleRegistry {
  public:
    // Scans `<dir>/*/manifest.json` of each directory in order; the first module of a name wins.
    void scan(const std::vector<std::string> &dirs, ModuleKind kind);

    const Manifest *find(const std::string &name) const;
    // The module that provides action (or runtime) `what`, or nullptr.
    const Manifest *provider_of(const std::string &what) const;
    // The module that declares HTTP route `path` with "load_on_route", or nullptr.
    const Manifest *route_loader_of(const std::string &path) const;
    // What a module declares the host answers on `path` while the module is not loaded, or nullptr.
    const nlohmann::json *route_fallback(const std::string &path) const;

    // The module declaration that takes `action` with these (normalised) arguments: one whose "when"
    // they match first, else one without "when"; nullopt when no module declares the action.
    struct DeclaredAction {
        const Manifest *module;
        const ActionSpec *spec;
    };
    std::optional<DeclaredAction> declaration_of(const std::string &action, const nlohmann::json &args) const;
    const std::vector<Manifest> &modules() const { return modules_; }
    const std::vector<InvalidManifest> &invalid() const { return invalid_; }
    std::vector<std::string> names() const;

    nlohmann::json to_json() const;

  private:
    std::vector<Manifest> modules_;
    std::vector<InvalidManifest> invalid_;
};

// Module directories of kind `kind` ("plugins"/"runtimes"): <install>/lib/actionhost/<kind> (unless
// `install_dir` is empty), then `extra`, then $ACTIONHOST_PLUGIN_PATH (plugins) or
// $ACTIONHOST_RUNTIME_PATH (runtimes), colon-separated, unless the process runs with elevated privileges
// — set-user/group-ID or with file capabilities: secure_getenv ignores the variable then, since loading
// code from a path the caller chose would be a privilege escalation. The one search-path rule of both
// module kinds.
std::vector<std::string> module_search_path(const std::string &install_dir, const std::string &kind,
                                            const std::vector<std::string> &extra);

}  // namespace actionhost::modules
