#include "actionhost/client/registry.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <actionhost/modules/registry.hpp>

#include "actionhost/client/errors.hpp"

namespace actionhost::client {

namespace fs = std::filesystem;

RuntimeRegistry RuntimeRegistry::scan(const std::vector<std::string> &dirs) {
    // The manifests are read by the module library the host reads its plugins' with: the same checks
    // and the same refusals.
    modules::ModuleRegistry found;
    found.scan(dirs, modules::ModuleKind::Runtime);
    RuntimeRegistry reg;
    for (const auto &bad : found.invalid()) reg.warnings_.push_back("Skipping runtime manifest " + bad.path + ": " + bad.error);
    for (const auto &m : found.modules()) {
        RuntimeModule mod;
        mod.name = m.name;
        mod.version = m.version;
        mod.abi_version = modules::to_string(m.abi_version);
        mod.description = m.description;
        mod.library_path = m.library_path();
        mod.manifest_path = m.dir + "/manifest.json";
        mod.runtimes = m.provides;
        mod.plugin_dirs = m.plugin_dirs;
        mod.network_keys = m.network_keys;
        mod.sandbox_keys = m.sandbox_keys;
        const size_t index = reg.modules_.size();
        reg.modules_.push_back(std::move(mod));
        for (const auto &r : reg.modules_.back().runtimes) reg.by_runtime_.try_emplace(r, index);
    }
    return reg;
}

const RuntimeModule &RuntimeRegistry::resolve(const std::string &name) const {
    std::string wanted = name == "eventstream" ? "docker" : name;
    auto it = by_runtime_.find(wanted);
    if (it != by_runtime_.end()) return modules_[it->second];
    // OpenHands' get_runtime_cls: ValueError(f"Runtime {name} not supported, known are: {list}") with a Python list.
    std::string list = "[";
    auto names = known();
    for (size_t i = 0; i < names.size(); ++i) list += (i ? ", '" : "'") + names[i] + "'";
    list += "]";
    throw RuntimeNotFound("Runtime " + name + " not supported, known are: " + list);
}

std::vector<std::string> RuntimeRegistry::known() const {
    std::vector<std::string> names;
    for (const auto &[n, _] : by_runtime_) names.push_back(n);
    return names;
}

std::vector<std::string> runtime_search_path(const std::string &install_dir, const std::vector<std::string> &config_dirs) {
    return modules::module_search_path(install_dir, "runtimes", config_dirs);
}

std::string detect_install_dir() {
    std::error_code ec;
    auto has_tree = [](const fs::path &p) { return fs::is_directory(p / "lib" / "actionhost"); };
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && has_tree(exe.parent_path().parent_path())) return exe.parent_path().parent_path().string();
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&detect_install_dir), &info) && info.dli_fname) {
        fs::path lib = fs::weakly_canonical(info.dli_fname, ec);
        if (!ec && has_tree(lib.parent_path().parent_path())) return lib.parent_path().parent_path().string();
    }
    if (const char *env = getenv("ACTIONHOST_INSTALL_DIR")) return env;
    return "";
}

}  // namespace actionhost::client
