// The OCI image format as the image store reads it: descriptors, manifests (OCI and Docker schema 2),
// indexes (OCI image indexes and Docker manifest lists), and the parts of an image's config a sandbox
// needs. Parsing only: every document here is untrusted (a registry's, an archive's) and is checked
// for the fields it must have before anything is taken from it.
//
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::client::images {

namespace media {
inline constexpr const char *kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr const char *kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr const char *kOciConfig = "application/vnd.oci.image.config.v1+json";
inline constexpr const char *kOciLayerGzip = "application/vnd.oci.image.layer.v1.tar+gzip";
inline constexpr const char *kOciLayerZstd = "application/vnd.oci.image.layer.v1.tar+zstd";
inline constexpr const char *kOciLayer = "application/vnd.oci.image.layer.v1.tar";
inline constexpr const char *kDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr const char *kDockerManifestList = "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr const char *kDockerConfig = "application/vnd.docker.container.image.v1+json";
inline constexpr const char *kDockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip";
// What a registry is asked for, in order of preference.
inline constexpr const char *kAcceptManifests =
    "application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, "
    "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";
}  // namespace media

struct Descriptor {
    std::string media_type;
    std::string digest;  // "sha256:<64 hex>"
    int64_t size = 0;
    nlohmann::json platform;  // in an index: {"os", "architecture", "variant"?}; else null
    nlohmann::json annotations;
};

struct Manifest {
    Descriptor config;
    std::vector<Descriptor> layers;  // bottom first
};

struct Platform {
    std::string os = "linux";
    std::string architecture;  // "amd64", "arm64", ...
    std::string variant;       // "v8", or ""
};

// "linux/amd64", "linux/arm64/v8", or "" for this machine's. Throws std::invalid_argument.
Platform parse_platform(const std::string &text);
std::string to_string(const Platform &p);

// Whether `digest` is "sha256:" and 64 lower-case hex digits (the only algorithm the store accepts).
bool valid_digest(const std::string &digest);

// A document's kind by its media type (the Content-Type a registry sent, or the document's own
// "mediaType"); "" when it is neither a manifest nor an index.
enum class DocumentKind { Manifest, Index, Unknown };
DocumentKind document_kind(const std::string &media_type, const nlohmann::json &document);

// Each throws std::runtime_error naming what is missing or malformed.
Manifest parse_manifest(const nlohmann::json &document);
std::vector<Descriptor> parse_index(const nlohmann::json &document);
// The entry of an index for `platform`; std::runtime_error listing the platforms there when none fits.
Descriptor select_platform(const std::vector<Descriptor> &entries, const Platform &platform);

// What a sandbox takes from an image's config.
struct ImageConfig {
    std::vector<std::string> env;  // "KEY=VALUE"
    std::string working_dir;
    std::string user;
    std::vector<std::string> diff_ids;  // rootfs.diff_ids: one per layer
};
ImageConfig parse_config(const nlohmann::json &document);

}  // namespace actionhost::client::images
