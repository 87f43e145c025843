// Plugins shipped over OCI registries (ahctl plugin push, install, ls, rm, search; docs/plugin-guide.md,
// "Publishing and installing"): a plugin folder travels as an OCI artifact of its own media types
// (src/plugins/plugin_artifact.hpp), optionally signed (Ed25519, src/plugins/plugin_signature.hpp), and is
// installed into a plugin directory the host searches, atomically, with its required plugins resolved by
// version range from the same registry.
//
// Registries are reached as for images (images.hpp): credentials from the docker CLI's config.json, plain
// http only on the loopback or for a registry in sandbox.insecure_registries. Errors: RuntimeError with
// the reason, and nothing written.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actionhost/client/config.hpp"

namespace actionhost::client {

using PluginProgress = std::function<void(const std::string &)>;

struct PluginPushOptions {
    std::string dir;        // the plugin folder: manifest.json, its library, its resources
    std::string reference;  // REGISTRY/PATH:TAG ("" tag → the manifest's version)
    std::string sign_key;   // an Ed25519 private key (PEM) to sign with, or ""
};

struct PluginPushResult {
    std::string reference;  // as pushed, with the tag
    std::string digest;     // the artifact manifest's
    std::string name, version, abi_version, platform;
    std::string key_id;  // the signing key's ("" unsigned)
};

// Packs and pushes; with a key, signs the manifest digest and pushes the signature beside it.
PluginPushResult push_plugin(const Config &config, const PluginPushOptions &options, const PluginProgress &progress = {});

struct PluginInstallOptions {
    std::string reference;                  // REGISTRY/PATH:TAG or @sha256:...
    std::string dir;                        // the plugin directory ("" → default_plugin_dir(""))
    std::vector<std::string> trusted_keys;  // Ed25519 public keys (PEM): each plugin installed must be signed by one
};

struct InstalledPlugin {
    std::string name, version, abi_version, platform;
    std::string dir;        // where it is: <plugin dir>/<name>
    std::string reference;  // what it was installed from ("" when not installed by ahctl)
    std::string digest;
    std::string signed_by;  // key id ("" unsigned)
    bool already = false;   // install: it was there already, in the range asked for
};

// Installs the plugin `reference` names and the plugins it requires (each the highest version its range
// admits among the tags of <registry>/<same folder>/<name>, unless one in range is installed already).
// Everything is fetched and checked first — every digest, the ABI (modules::abi_supported), the platform
// (annotation and ELF against this machine's), the signature when keys are given — before anything is
// written; each plugin is staged beside its place and renamed into it. Returns what was installed, the
// requested plugin last.
std::vector<InstalledPlugin> install_plugin(const Config &config, const PluginInstallOptions &options, const PluginProgress &progress = {});

struct PluginImageResult {
    std::string image;   // the new image's name in the store
    std::string digest;  // its manifest's
    std::vector<InstalledPlugin> installed;  // as install_plugin's, their `dir` inside the image
};

// Installs as install_plugin does (the same checks, before anything is stored) into a new image of the
// client's image store: the image `base` (a store name or a reference, made ready as a sandbox's is) plus
// one layer holding the plugins in runtime_support::kImagePluginDir, owned by root, stored as `name`
// (replacing an image of that name). A sandbox started from it (`--image name`) loads them as the
// host's. `options.dir` must be empty. Nothing is stored when anything is refused.
PluginImageResult install_plugin_into_image(const Config &config, const PluginInstallOptions &options, const std::string &base,
                                            const std::string &name, const PluginProgress &progress = {});

// The plugins of `dir` (each <dir>/<name>/manifest.json), sorted by name.
std::vector<InstalledPlugin> list_installed_plugins(const std::string &dir);
// Removes <dir>/<name>; refused (RuntimeError) when it is not a plugin folder or another plugin there
// requires it.
void remove_installed_plugin(const std::string &dir, const std::string &name);

struct PublishedPlugin {
    std::string repository;  // REGISTRY/PATH
    std::string tag;
    std::map<std::string, std::string> annotations;  // the artifact's
};

// The plugin artifacts of `registry` ("127.0.0.1:5000"): its catalog, each repository's tags, each
// tag's annotations; repositories that hold no plugin artifact are left out. `filter`, when not empty,
// keeps the repositories whose path contains it.
std::vector<PublishedPlugin> search_plugins(const Config &config, const std::string &registry, const std::string &filter = "");

// Where `install` puts plugins by default: <install prefix>/lib/actionhost/plugins, the directory the
// host searches first (modules::module_search_path). `install_dir` "" → the client's own prefix.
std::string default_plugin_dir(const std::string &install_dir);

}  // namespace actionhost::client
