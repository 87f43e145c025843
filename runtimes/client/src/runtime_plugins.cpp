// The plugin distribution API (actionhost/client/plugins.hpp) over the configuration: the registry
// settings images use, the default plugin directory, and RuntimeError at the boundary.
#include <actionhost/modules/registry.hpp>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/plugins.hpp"
#include "actionhost/client/registry.hpp"
#include "plugins/plugin_ops.hpp"
#include "runtime_impl.hpp"

namespace actionhost::client {

namespace {

template <class F>
auto as_runtime_error(const std::string &what, F &&f) -> decltype(f()) {
    try {
        return f();
    } catch (const RuntimeError &) {
        throw;
    } catch (const std::exception &e) {  // the registry's, the store's, libarchive's, TransportError too
        throw RuntimeError(what + ": " + e.what());
    }
}

}  // namespace

std::string default_plugin_dir(const std::string &install_dir) {
    const std::string prefix = install_dir.empty() ? detect_install_dir() : install_dir;
    if (prefix.empty())
        throw RuntimeError("no install prefix is known (ahctl runs outside an install tree and ACTIONHOST_INSTALL_DIR is unset): give --dir DIR");
    // The first directory of the host's search path: modules::module_search_path(prefix, "plugins", {}).
    return modules::module_search_path(prefix, "plugins", {}).front();
}

PluginPushResult push_plugin(const Config &config, const PluginPushOptions &options, const PluginProgress &progress) {
    return as_runtime_error("plugin push " + options.dir + " to " + options.reference,
                            [&] { return plugins::push(registry_settings(config), options, progress); });
}

std::vector<InstalledPlugin> install_plugin(const Config &config, const PluginInstallOptions &options, const PluginProgress &progress) {
    PluginInstallOptions o = options;
    if (o.dir.empty()) o.dir = default_plugin_dir("");
    return as_runtime_error("plugin install " + options.reference, [&] { return plugins::install(registry_settings(config), o, progress); });
}

std::vector<InstalledPlugin> list_installed_plugins(const std::string &dir) {
    return as_runtime_error("plugin ls " + dir, [&] { return plugins::installed_in(dir); });
}

void remove_installed_plugin(const std::string &dir, const std::string &name) {
    as_runtime_error("plugin rm " + name, [&] { plugins::remove_from(dir, name); });
}

std::vector<PublishedPlugin> search_plugins(const Config &config, const std::string &registry, const std::string &filter) {
    return as_runtime_error("plugin search " + registry, [&] { return plugins::search(registry_settings(config), registry, filter); });
}

}  // namespace actionhost::client
