#include "actionhost/modules/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace actionhost::modules {

namespace fs = std::filesystem;

void ModuleRegistry::scan(const std::vector<std::string> &dirs, ModuleKind kind) {
    for (const auto &dir : dirs) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> entries;
        for (const auto &e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
        std::sort(entries.begin(), entries.end());
        for (const auto &sub : entries) {
            const fs::path manifest_path = sub / "manifest.json";
            if (!fs::is_regular_file(manifest_path, ec)) continue;
            auto parsed = read_manifest(manifest_path.string());
            if (!parsed) {
                invalid_.push_back({manifest_path.string(), parsed.error().message});
                continue;
            }
            if (parsed.value().kind != kind) continue;
            if (find(parsed.value().name) != nullptr) {
                invalid_.push_back({manifest_path.string(), "a module named \"" + parsed.value().name +
                                                                "\" was already found earlier on the search path"});
                continue;
            }
            modules_.push_back(std::move(parsed).value());
        }
    }
}

const Manifest *ModuleRegistry::find(const std::string &name) const {
    for (const auto &m : modules_)
        if (m.name == name) return &m;
    return nullptr;
}

const Manifest *ModuleRegistry::provider_of(const std::string &what) const {
    for (const auto &m : modules_)
        if (std::find(m.provides.begin(), m.provides.end(), what) != m.provides.end()) return &m;
    return nullptr;
}

const Manifest *ModuleRegistry::route_loader_of(const std::string &path) const {
    for (const auto &m : modules_)
        if (m.load_on_route && std::find(m.http_routes.begin(), m.http_routes.end(), path) != m.http_routes.end())
            return &m;
    return nullptr;
}

const nlohmann::json *ModuleRegistry::route_fallback(const std::string &path) const {
    for (const auto &m : modules_)
        if (auto it = m.route_fallbacks.find(path); it != m.route_fallbacks.end()) return &it->second;
    return nullptr;
}

std::optional<ModuleRegistry::DeclaredAction> ModuleRegistry::declaration_of(const std::string &action,
                                                                            const nlohmann::json &args) const {
    std::optional<DeclaredAction> unconditional;
    for (const auto &m : modules_) {
        for (const auto &spec : m.actions) {
            if (spec.name != action || !spec.matches(args)) continue;
            if (!spec.when.empty()) return DeclaredAction{&m, &spec};
            if (!unconditional) unconditional = DeclaredAction{&m, &spec};
        }
    }
    return unconditional;
}

std::vector<std::string> ModuleRegistry::names() const {
    std::vector<std::string> out;
    for (const auto &m : modules_) out.push_back(m.name);
    return out;
}

nlohmann::json ModuleRegistry::to_json() const {
    nlohmann::json all = nlohmann::json::array();
    for (const auto &m : modules_) {
        all.push_back({{"name", m.name},
                       {"kind", to_string(m.kind)},
                       {"version", m.version},
                       {"abi_version", to_string(m.abi_version)},
                       {"library", m.library_path()},
                       {"description", m.description},
                       {"provides", m.provides},
                       {"actions", [&] {
                            nlohmann::json a = nlohmann::json::object();
                            for (const auto &spec : m.actions) {
                                a[spec.name] = spec.json_schema();
                                if (!spec.when.empty()) a[spec.name]["x-when"] = spec.when;
                            }
                            return a;
                        }()},
                       {"load", m.autoload ? "always" : "on_demand"},
                       {"http_routes", m.http_routes},
                       {"load_on_route", m.load_on_route},
                       {"requires", {{"executables", m.requires_executables}, {"plugins", m.requires_plugins}}},
                       {"never_unload", m.never_unload}});
    }
    nlohmann::json bad = nlohmann::json::array();
    for (const auto &i : invalid_) bad.push_back({{"path", i.path}, {"error", i.error}});
    return {{"ALL_PLUGINS", all}, {"invalid", bad}};
}

std::vector<std::string> module_search_path(const std::string &install_dir, const std::string &kind,
                                            const std::vector<std::string> &extra) {
    std::vector<std::string> dirs;
    if (!install_dir.empty()) dirs.push_back(install_dir + "/lib/actionhost/" + kind);
    dirs.insert(dirs.end(), extra.begin(), extra.end());
    const char *variable = kind == "runtimes" ? "ACTIONHOST_RUNTIME_PATH" : "ACTIONHOST_PLUGIN_PATH";
    if (const char *env = secure_getenv(variable)) {
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ':'))
            if (!item.empty()) dirs.push_back(item);
    }
    return dirs;
}

}  // namespace actionhost::modules
