// `ahctl plugin push` (a folder packed and uploaded as an artifact, optionally signed) and `search`
// (the plugin artifacts a registry holds).
#include <actionhost/modules/manifest.hpp>
#include <actionhost/runtime_support/image_reference.hpp>

#include <fstream>
#include <stdexcept>

#include <actionhost/common/digest.hpp>
#include <actionhost/common/json_write.hpp>

#include "plugins/elf_platform.hpp"
#include "plugins/plugin_artifact.hpp"
#include "plugins/plugin_layer.hpp"
#include "plugins/plugin_ops.hpp"
#include "plugins/plugin_signature.hpp"

namespace actionhost::client::plugins {

namespace {

std::string sha256_of(const std::string &bytes) {
    common::Digest sha = common::Digest::sha256();
    sha.update(bytes);
    return "sha256:" + sha.hex();
}

// Whether the reference text names a tag (a ':' after its last '/'), so that "" can default to the version.
bool names_tag(const std::string &reference) {
    const size_t slash = reference.rfind('/');
    return reference.find(':', slash == std::string::npos ? 0 : slash) != std::string::npos;
}

void upload(images::RegistryClient &client, const images::Descriptor &d, const images::BlobStore &store) {
    if (!client.has_blob(d.digest)) client.upload_blob(d, store);
}

}  // namespace

PluginPushResult push(const images::RegistrySettings &settings, const PluginPushOptions &options, const PluginProgress &progress) {
    const std::string dir = options.dir.empty() ? "." : options.dir;
    auto m = modules::read_manifest(dir + "/manifest.json");
    if (!m) throw std::runtime_error(dir + "/manifest.json: " + m.error().message);
    const modules::Manifest &manifest = m.value();
    if (manifest.kind != modules::ModuleKind::Plugin) throw std::runtime_error(dir + "/manifest.json is a runtime's, not a plugin's");
    std::string head(64, '\0');
    {
        std::ifstream lib(manifest.library_path(), std::ios::binary);
        if (!lib) throw std::runtime_error("the plugin's library " + manifest.library_path() + " cannot be read (build it first)");
        lib.read(head.data(), static_cast<std::streamsize>(head.size()));
        head.resize(static_cast<size_t>(lib.gcount()));
    }
    ArtifactInfo info;
    try {
        info.platform = elf_platform(head);
    } catch (const std::exception &e) {
        throw std::runtime_error("the plugin's library " + manifest.library_path() + ": " + e.what());
    }
    info.name = manifest.name;
    info.version = manifest.version;
    info.abi_version = modules::to_string(manifest.abi_version);
    info.description = manifest.description;
    for (const auto &name : manifest.requires_plugins) info.requires_plugins[name] = manifest.plugin_ranges.count(name) ? manifest.plugin_ranges.at(name) : "";

    runtime_support::ImageReference ref;
    const std::string reference = names_tag(options.reference) || options.reference.find('@') != std::string::npos
                                      ? options.reference
                                      : options.reference + ":" + manifest.version;
    try {
        ref = runtime_support::parse_image_reference(reference);
    } catch (const std::invalid_argument &e) {
        throw std::runtime_error(e.what());
    }
    if (!ref.digest.empty()) throw std::runtime_error("push to a tag, not a digest: " + options.reference);

    ScratchDir scratch(temp_parent(), "ahctl-plugin-push-");
    const images::BlobStore store(scratch.path());
    if (progress) progress("packing " + dir);
    info.layer = write_plugin_layer(dir, store, kMaxPluginBytes);
    info.layer.media_type = media::kLayer;
    info.layer.annotations = {{"org.opencontainers.image.title", manifest.name + ".tar.gz"}};
    const std::string config = artifact_config(info);
    info.config = {media::kConfig, store.put(config), static_cast<int64_t>(config.size()), nullptr, nullptr};
    const std::string manifest_bytes = artifact_manifest(info);

    images::RegistryClient client(ref, settings);
    if (progress) progress("pushing " + reference);
    upload(client, info.config, store);
    upload(client, info.layer, store);
    const std::string digest = sha256_of(manifest_bytes);
    const std::string answered = client.put_manifest(ref.tag, manifest_bytes, images::media::kOciManifest);
    if (!answered.empty() && answered != digest) throw std::runtime_error("the registry stored the manifest as " + answered + ", not " + digest);

    PluginPushResult result{reference, digest, info.name, info.version, info.abi_version, info.platform, ""};
    if (!options.sign_key.empty()) {
        const std::string document = sign_digest(digest, options.sign_key);
        const images::Descriptor doc{media::kSignature, store.put(document), static_cast<int64_t>(document.size()), nullptr, nullptr};
        const std::string empty = "{}";
        const images::Descriptor cfg{media::kSignatureConfig, store.put(empty), static_cast<int64_t>(empty.size()), nullptr, nullptr};
        upload(client, cfg, store);
        upload(client, doc, store);
        if (progress) progress("signing " + digest);
        client.put_manifest(signature_tag(digest), signature_manifest(cfg, doc, digest), images::media::kOciManifest);
        result.key_id = key_id_of_file(options.sign_key);
    }
    return result;
}

std::vector<PublishedPlugin> search(const images::RegistrySettings &settings, const std::string &registry, const std::string &filter) {
    if (registry.empty() || registry.find('/') != std::string::npos)
        throw std::runtime_error("search takes a registry (host[:port]), got \"" + registry + "\"");
    runtime_support::ImageReference at;
    at.registry = registry;
    at.path = "_catalog";
    images::RegistryClient catalog_client(at, settings);
    std::vector<PublishedPlugin> out;
    for (const auto &repository : catalog_client.catalog(1000)) {
        if (!filter.empty() && repository.find(filter) == std::string::npos) continue;
        runtime_support::ImageReference ref = at;
        ref.path = repository;
        images::RegistryClient client(ref, settings);
        for (const auto &tag : client.tags(200)) {
            if (tag.size() > 4 && tag.compare(tag.size() - 4, 4, ".sig") == 0) continue;  // a signature, shown with its artifact
            try {
                const ArtifactInfo info = parse_artifact_manifest(client.manifest(tag).bytes);
                PublishedPlugin p{registry + "/" + repository, tag, {}};
                p.annotations = {{annotation::kName, info.name},
                                 {annotation::kVersion, info.version},
                                 {annotation::kAbi, info.abi_version},
                                 {annotation::kPlatform, info.platform}};
                std::string requires_;
                for (const auto &[n, r] : info.requires_plugins) requires_ += (requires_.empty() ? "" : ", ") + n + (r.empty() ? "" : " " + r);
                if (!requires_.empty()) p.annotations[annotation::kRequires] = requires_;
                if (!info.description.empty()) p.annotations["org.opencontainers.image.description"] = info.description;
                out.push_back(std::move(p));
            } catch (const std::runtime_error &) {
                // An image, or something else that is no plugin artifact: not a search result.
            }
        }
    }
    return out;
}

}  // namespace actionhost::client::plugins
