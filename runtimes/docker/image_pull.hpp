// Pulling an image that the engine does not have, as `docker run` does: POST /images/create with the
// registry's credentials from the docker CLI's config (registry_auth.hpp), its streamed progress summed
// over the layers and reported as one line ("pulling busybox:1: 12.3 of 45.6 MB").
#pragma once

#include <functional>
#include <string>

#include "engine_api.hpp"

namespace docker {

// An image reference split as the docker CLI does: [registry/]path[:tag][@digest]; a first component
// with a '.' or ':' or "localhost" is a registry, else the image is on Docker Hub ("docker.io", path
// "library/<name>" for an official image).
struct ImageReference {
    std::string registry;  // "docker.io", "127.0.0.1:5000", "ghcr.io"
    std::string path;      // "library/busybox", "owner/repo"
    std::string tag;       // "latest" when neither tag nor digest is given
    std::string digest;    // "sha256:..." or ""
    std::string from_image() const;  // the fromImage parameter: the name without tag or digest
};
// Throws std::invalid_argument for an empty or malformed reference.
ImageReference parse_image_reference(const std::string &image);

struct PullSettings {
    std::string platform;     // sandbox.platform ("" = the engine's)
    std::string docker_config_dir;  // $DOCKER_CONFIG or ~/.docker
};

// Pulls `image`. `progress` gets a line now and then (at most every 0.5 s, and at each layer's end).
// Throws std::runtime_error("pulling <image> failed: <the engine's or the registry's reason>").
void pull_image(Engine &engine, const std::string &image, const PullSettings &settings,
                const std::function<void(const std::string &)> &progress);

}  // namespace docker
