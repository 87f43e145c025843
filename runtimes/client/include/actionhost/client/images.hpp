// The client's image store as a program (ahctl images, rmi) sees it: the images sandboxes of the
// `sandbox` runtime start from — pulled, imported, or snapshots of sandboxes (Runtime::snapshot).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actionhost/client/config.hpp"

namespace actionhost::client {

struct ImageEntry {
    std::string name;    // as it was asked for, or a snapshot's name
    std::string digest;  // its manifest's
    long long created = 0;  // seconds since the epoch
};

// The store's directory for `config`: sandbox.image_store, else <core.state_dir>/images, else
// ~/.local/state/actionhost/images.
std::string image_store_root(const Config &config);
// The images of the store, sorted by name.
std::vector<ImageEntry> list_images(const Config &config);
// Removes the image `name` and what nothing else needs; refused (RuntimeError) while a kept-alive sandbox
// of the state directory runs on it. Returns the bytes freed.
uint64_t remove_image(const Config &config, const std::string &name);

// Sends the image `name` to the registry `reference` (REGISTRY/PATH:TAG) names, without a daemon: the
// blobs its repository lacks, then the manifest. Credentials from the docker CLI's config.json; plain http
// only for a registry on the loopback or in sandbox.insecure_registries. `progress` gets lines to show.
// Returns the manifest's digest. Throws RuntimeError with the registry's answer.
std::string push_image(const Config &config, const std::string &name, const std::string &reference,
                       const std::function<void(const std::string &)> &progress = {});

}  // namespace actionhost::client
