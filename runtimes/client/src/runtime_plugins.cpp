// The plugin distribution API (actionhost/client/plugins.hpp) over the configuration: the registry
// settings images use, the default plugin directory, the image store for installs into an image, and
// RuntimeError at the boundary.
#include <actionhost/modules/registry.hpp>
#include <actionhost/runtime_support/host_bundle.hpp>

#include <unistd.h>

#include <filesystem>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/plugins.hpp"
#include "actionhost/client/registry.hpp"
#include "images/image_store.hpp"
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

PluginImageResult install_plugin_into_image(const Config &config, const PluginInstallOptions &options, const std::string &base,
                                            const std::string &name, const PluginProgress &progress) {
    if (!options.dir.empty()) throw RuntimeError("plugin install into an image takes no plugin directory (it is " +
                                                 std::string(runtime_support::kImagePluginDir) + " in the image)");
    if (base.empty() || name.empty()) throw RuntimeError("plugin install into an image needs the base image and the new image's name");
    return as_runtime_error("plugin install " + options.reference + " into " + base + " as " + name, [&] {
        // The layer's tree: the plugins where a host from the bundle looks for the image's own, staged and
        // checked by the installer exactly as into a directory — nothing reaches the store before that.
        plugins::ScratchDir scratch(plugins::temp_parent(), "ah-plugin-image");
        const std::string upper = scratch.path() + "/upper";
        const std::string dir = upper + runtime_support::kImagePluginDir;
        std::filesystem::create_directories(dir);
        for (std::filesystem::path p = dir; p.string().size() >= upper.size(); p = p.parent_path())
            std::filesystem::permissions(p, std::filesystem::perms(0755));
        PluginInstallOptions o = options;
        o.dir = dir;
        PluginImageResult result;
        result.installed = plugins::install(registry_settings(config), o, progress);
        for (auto &p : result.installed) p.dir = std::string(runtime_support::kImagePluginDir) + p.dir.substr(dir.size());
        // The caller's files, owned by root in the image: its ids counted from the caller's (0 → 0 for root),
        // so the sandbox's user cannot rewrite a plugin the host (its root) loads.
        images::Owners owners;
        owners.map_owners = true;
        owners.uid_base = ::geteuid();
        owners.gid_base = ::getegid();
        images::ImageStore store(image_store_settings(config));
        const images::PreparedImage prepared = store.prepare(base, images::Owners{}, progress);
        result.digest = store.commit(prepared.digest, upper, owners, name);
        result.image = name;
        return result;
    });
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
