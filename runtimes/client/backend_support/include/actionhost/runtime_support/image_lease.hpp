// Which images of a client's image store running sandboxes stand on, so that removing an image never
// pulls the layers from under a live overlay.
//
// A backend that starts a sandbox on an image of the store writes a lease into the sandbox's owned
// directory (owned_dir.hpp): the lease lives exactly as long as that directory's owner (the sandbox), with
// nothing to clean up when it dies — a dead owner's lease simply stops counting. The store, before it
// removes anything, asks for the live leases on it.
//
// Threads: any; every call works on files only.
#pragma once

#include <string>
#include <vector>

namespace actionhost::runtime_support {

// Records in `owned_dir` that its owner runs on the image `manifest_digest` of the store `store_root`.
// Throws std::runtime_error when the lease cannot be written.
void write_image_lease(const std::string &owned_dir, const std::string &store_root, const std::string &manifest_digest);

// The manifest digests that live owners of this user's owned directories (any prefix) hold leases on in
// `store_root`.
std::vector<std::string> live_image_leases(const std::string &store_root);

}  // namespace actionhost::runtime_support
