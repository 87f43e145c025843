// Pulling an image that the engine does not have, as `docker run` does: POST /images/create with the
// registry's credentials from the docker CLI's config (registry_auth.hpp), its streamed progress summed
// over the layers and reported as one line ("pulling busybox:1: 12.3 of 45.6 MB").
#pragma once

#include <functional>
#include <string>

#include <actionhost/runtime_support/image_reference.hpp>

#include "engine_api.hpp"

namespace docker {

// References are read as the docker CLI reads them (actionhost/runtime_support/image_reference.hpp).
using actionhost::runtime_support::ImageReference;
using actionhost::runtime_support::parse_image_reference;

struct PullSettings {
    std::string platform;     // sandbox.platform ("" = the engine's)
    std::string docker_config_dir;  // $DOCKER_CONFIG or ~/.docker
};

// Pulls `image`. `progress` gets a line now and then (at most every 0.5 s, and at each layer's end).
// Throws std::runtime_error("pulling <image> failed: <the engine's or the registry's reason>").
void pull_image(Engine &engine, const std::string &image, const PullSettings &settings,
                const std::function<void(const std::string &)> &progress);

}  // namespace docker
