// An image reference split as the docker CLI does: [registry/]path[:tag][@digest]; a first component
// with a '.' or ':' or "localhost" is a registry, else the image is on Docker Hub ("docker.io", path
// "library/<name>" for an official image). Shared by the docker backend and the client's image store.
#pragma once

#include <string>

namespace actionhost::runtime_support {

struct ImageReference {
    std::string registry;  // "docker.io", "127.0.0.1:5000", "ghcr.io"
    std::string path;      // "library/busybox", "owner/repo"
    std::string tag;       // "latest" when neither tag nor digest is given
    std::string digest;    // "sha256:..." or ""
    std::string from_image() const;  // the engine's fromImage parameter: the name without tag or digest
};

// Throws std::invalid_argument for an empty or malformed reference.
ImageReference parse_image_reference(const std::string &image);

}  // namespace actionhost::runtime_support
