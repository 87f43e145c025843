// The images service a backend gets through host->get_extension("actionhost.images/1"): the image the
// configuration names, made ready in the client's image store (images/image_store.hpp); snapshots of a
// connected runtime (actionhost.runtime_snapshot/1); the store as a program sees it (images.hpp).
#include <actionhost/common/json_io.hpp>
#include <actionhost/ext/runtime_images.h>
#include <actionhost/ext/runtime_snapshot.h>
#include <actionhost/runtime_support/image_lease.hpp>
#include <actionhost/runtime_support/registry_credentials.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "actionhost/client/images.hpp"
#include "images/image_store.hpp"
#include "runtime_impl.hpp"

namespace actionhost::client {

namespace {

std::vector<std::string> string_list(const Config &config, const std::string &key) {
    std::vector<std::string> out;
    const nlohmann::json v = config.get(key);
    if (v.is_array())
        for (const auto &e : v)
            if (e.is_string() && !e.get<std::string>().empty()) out.push_back(e.get<std::string>());
    return out;
}

images::StoreSettings store_settings(const Config &config, const std::string &root) {
    images::StoreSettings settings;
    settings.root = root;
    settings.platform = images::parse_platform(config.get_string("sandbox.platform", ""));
    settings.registry.mirrors = string_list(config, "sandbox.registry_mirrors");
    settings.registry.insecure = string_list(config, "sandbox.insecure_registries");
    settings.registry.docker_config_dir = runtime_support::default_docker_config_dir();
    settings.max_image_bytes = static_cast<uint64_t>(std::max(1.0, config.get_number("sandbox.image_max_size_mb", 32768))) << 20;
    settings.registry.max_blob_bytes = static_cast<int64_t>(settings.max_image_bytes);
    return settings;
}

}  // namespace

images::RegistrySettings registry_settings(const Config &config) { return store_settings(config, "").registry; }

images::StoreSettings image_store_settings(const Config &config) { return store_settings(config, image_store_root(config)); }

std::string image_store_root(const Config &config) {
    const std::string configured = config.get_string("sandbox.image_store", "");
    return configured.empty() ? images::ImageStore::default_root(config.get_string("core.state_dir", "")) : configured;
}

std::vector<ImageEntry> list_images(const Config &config) {
    images::ImageStore store(image_store_settings(config));
    std::vector<ImageEntry> out;
    for (const auto &i : store.list()) out.push_back({i.name, i.digest, i.created});
    std::sort(out.begin(), out.end(), [](const ImageEntry &a, const ImageEntry &b) { return a.name < b.name; });
    return out;
}

uint64_t remove_image(const Config &config, const std::string &name) {
    images::ImageStore store(image_store_settings(config));
    try {
        return store.remove(name, runtime_support::live_image_leases(image_store_root(config)));
    } catch (const std::runtime_error &e) {
        throw RuntimeError(e.what());
    }
}

std::string push_image(const Config &config, const std::string &name, const std::string &reference,
                       const std::function<void(const std::string &)> &progress) {
    images::ImageStore store(image_store_settings(config));
    try {
        return store.push(name, reference, progress);
    } catch (const std::runtime_error &e) {  // the store's and the registry's errors, TransportError too
        throw RuntimeError("push " + name + " to " + reference + ": " + e.what());
    }
}

std::string Runtime::snapshot(const std::string &name) {
    Impl &s = *impl_;
    if (!s.connected) throw RuntimeError("snapshot needs a connected runtime");
    const auto *ext = static_cast<const ah_ext_runtime_snapshot_t *>(s.runtime->get_extension(s.runtime, AH_EXT_RUNTIME_SNAPSHOT));
    if (ext == nullptr) throw RuntimeError("Runtime " + s.runtime_name + " cannot take snapshots");
    char *answer = nullptr;
    s.check(ext->freeze_layer(s.runtime, &answer), "freeze its sandbox for a snapshot");
    const nlohmann::json layer = nlohmann::json::parse(answer != nullptr ? answer : "{}", nullptr, false);
    ext->free_string(s.runtime, answer);
    std::string digest;
    try {
        images::Owners owners;
        owners.map_owners = layer.value("map_owners", false);
        owners.uid_base = layer.value("uid_base", 0ULL);
        owners.gid_base = layer.value("gid_base", 0ULL);
        images::ImageStore store(store_settings(s.options.config, s.images_root));
        digest = store.commit(layer.value("image", ""), layer.value("upper", ""), owners, name);
    } catch (const std::exception &e) {
        ext->thaw(s.runtime);
        throw RuntimeError("snapshot " + name + ": " + e.what());
    }
    s.check(ext->thaw(s.runtime), "thaw its sandbox after the snapshot");
    return digest;
}

ah_status_t Runtime::Impl::svc_images_prepare(const ah_runtime_host_t *h, const char *owners_json, char **out_json) {
    if (out_json == nullptr) return AH_ERR_INVALID_ARGUMENT;
    *out_json = nullptr;
    Impl *self = of(h);
    const Config &config = self->options.config;
    // Only an image the user named: OpenHands' default image is for its docker runtime.
    if (!config.is_explicit("sandbox.base_container_image")) return AH_OK;
    const std::string reference = config.get_string("sandbox.base_container_image", "");
    if (reference.empty()) return AH_OK;
    try {
        const images::StoreSettings settings = store_settings(config, self->images_root);
        images::Owners owners;
        const nlohmann::json o = nlohmann::json::parse(owners_json != nullptr ? owners_json : "{}", nullptr, false);
        if (o.is_object() && o.value("map_owners", false)) {
            owners.map_owners = true;
            owners.uid_base = o.value("uid_base", 0ULL);
            owners.gid_base = o.value("gid_base", 0ULL);
        }
        images::ImageStore store(settings);
        const images::PreparedImage image =
            store.prepare(reference, owners, [self](const std::string &line) { self->status(AH_STATUS_BUILDING_RUNTIME, line); });
        for (const auto &n : image.notes) self->log(common::LogLevel::Info, "image " + reference + ": " + n);
        nlohmann::json answer = {{"name", image.name}, {"digest", image.digest}, {"store", self->images_root}, {"layers", image.layers},
                                 {"env", image.config.env}, {"working_dir", image.config.working_dir}, {"user", image.config.user}};
        *out_json = ::strdup(common::dump_json(answer).c_str());
        return *out_json != nullptr ? AH_OK : AH_ERR_IO;
    } catch (const std::exception &e) {
        *out_json = ::strdup(common::dump_json(nlohmann::json{{"error", "image " + reference + ": " + e.what()}}).c_str());
        return AH_ERR_IO;
    }
}

void Runtime::Impl::svc_images_free(const ah_runtime_host_t *, char *text) { std::free(text); }

}  // namespace actionhost::client
