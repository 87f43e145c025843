// A plugin as an OCI artifact (docs/plugin-guide.md, "Publishing and installing"): an OCI image
// manifest whose config and one layer have media types of their own, so no container tool mistakes it
// for an image to run, and whose annotations say what it is without a download:
//   config  application/vnd.actionhost.plugin.config.v1+json   {"name","version","abi_version","platform","requires"}
//   layer   application/vnd.actionhost.plugin.layer.v1.tar+gzip  the plugin folder (plugin_layer.hpp)
//   annotations  io.actionhost.plugin.{name,version,abi_version,platform,requires} and the
//                org.opencontainers.image.{title,version,description} every registry UI shows
// A signature is a second artifact of the same repository under the tag "sha256-<hex>.sig" (cosign's
// convention: Debian's docker-registry, distribution 2.8, has no referrers API), its one layer of type
// application/vnd.actionhost.plugin.signature.v1+json the document plugin_signature.hpp describes.
//
// Threads: pure functions.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "images/oci.hpp"

namespace actionhost::client::plugins {

namespace media {
inline constexpr const char *kConfig = "application/vnd.actionhost.plugin.config.v1+json";
inline constexpr const char *kLayer = "application/vnd.actionhost.plugin.layer.v1.tar+gzip";
inline constexpr const char *kSignature = "application/vnd.actionhost.plugin.signature.v1+json";
inline constexpr const char *kSignatureConfig = "application/vnd.actionhost.plugin.signature.config.v1+json";
}  // namespace media

namespace annotation {
inline constexpr const char *kName = "io.actionhost.plugin.name";
inline constexpr const char *kVersion = "io.actionhost.plugin.version";
inline constexpr const char *kAbi = "io.actionhost.plugin.abi_version";
inline constexpr const char *kPlatform = "io.actionhost.plugin.platform";
inline constexpr const char *kRequires = "io.actionhost.plugin.requires";  // JSON: {"name": "range"}
}  // namespace annotation

// What an artifact says of its plugin (its annotations, checked against its config).
struct ArtifactInfo {
    std::string name, version, abi_version, platform, description;
    std::map<std::string, std::string> requires_plugins;  // name → range ("" = any)
    images::Descriptor config, layer;
};

// The config document and the manifest of an artifact of `info` (config and layer descriptors set).
std::string artifact_config(const ArtifactInfo &info);
std::string artifact_manifest(const ArtifactInfo &info);
// Reads an artifact's manifest (untrusted): std::runtime_error when it is not a plugin artifact or
// lacks an annotation.
ArtifactInfo parse_artifact_manifest(const std::string &bytes);
// Checks the config document against the manifest's annotations; std::runtime_error naming what differs.
void check_artifact_config(const ArtifactInfo &info, const std::string &config_bytes);

// The signature artifact's tag for the artifact `digest` ("sha256:<hex>" → "sha256-<hex>.sig").
std::string signature_tag(const std::string &digest);
// The manifest of a signature artifact whose layer (the document) and config are these descriptors.
std::string signature_manifest(const images::Descriptor &config, const images::Descriptor &document, const std::string &signed_digest);
// The signature document's descriptor from a signature artifact's manifest; std::runtime_error if none.
images::Descriptor parse_signature_manifest(const std::string &bytes);

}  // namespace actionhost::client::plugins
