// The images service a backend gets through host->get_extension("actionhost.images/1"): the image the
// configuration names, made ready in the client's image store (images/image_store.hpp).
#include <actionhost/common/json_io.hpp>
#include <actionhost/ext/runtime_images.h>
#include <actionhost/runtime_support/registry_credentials.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

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

}  // namespace

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
        images::StoreSettings settings;
        settings.root = self->images_root;
        settings.platform = images::parse_platform(config.get_string("sandbox.platform", ""));
        settings.registry.mirrors = string_list(config, "sandbox.registry_mirrors");
        settings.registry.insecure = string_list(config, "sandbox.insecure_registries");
        settings.registry.docker_config_dir = runtime_support::default_docker_config_dir();
        settings.max_image_bytes = static_cast<uint64_t>(std::max(1.0, config.get_number("sandbox.image_max_size_mb", 32768))) << 20;
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
        nlohmann::json answer = {{"name", image.name}, {"digest", image.digest}, {"layers", image.layers},
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
