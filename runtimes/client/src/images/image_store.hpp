// The client's image store: images for sandboxes that stack an image's layers themselves (overlayfs)
// instead of handing the image to a daemon.
//
//   <root>/blobs/sha256/<hex>           manifests, configs, compressed layers, each verified (blob_store.hpp)
//   <root>/layers/<owners>/<hex>/       each layer unpacked once (layer_unpacker.hpp), named by its blob's
//                                       digest, per ownership ("range-<uid>-<gid>" for a root caller's
//                                       sandboxes, "caller" otherwise); a directory in place is complete
//   <root>/names.json                   name → manifest digest (pulls, imports, snapshots)
//   <root>/lock                         held while the store changes
// The root is the caller's alone (0700): nothing in it — setuid files of an image included — is
// reachable by another user of the machine.
//
// An image known by its name is used as it is (no network): `docker run`'s "missing" pull policy.
//
// Threads: one ImageStore per thread; processes share a store through its lock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "images/layer_unpacker.hpp"
#include "images/oci.hpp"
#include "images/registry_client.hpp"

namespace actionhost::client::images {

struct StoreSettings {
    std::string root;
    Platform platform;
    RegistrySettings registry;
    uint64_t max_image_bytes = uint64_t{32} << 30;  // what all layers of an image may unpack to
};

struct Owners {
    bool map_owners = false;
    uint64_t uid_base = 0, gid_base = 0;
};

struct PreparedImage {
    std::string name;    // as asked for
    std::string digest;  // the manifest's
    std::vector<std::string> layers;  // unpacked directories, bottom first
    ImageConfig config;
    std::vector<std::string> notes;   // what unpacking skipped or dropped
};

struct StoredImage {
    std::string name;
    std::string digest;
    long long created = 0;  // seconds since the epoch
};

class ImageStore {
  public:
    // Creates the store's directory (0700) when missing. std::runtime_error when it cannot.
    explicit ImageStore(StoreSettings settings);

    // Makes `reference` ready: looked up by name, else imported or pulled (verified), then every layer
    // unpacked for `owners`. `progress` gets one line now and then. std::runtime_error with why.
    PreparedImage prepare(const std::string &reference, const Owners &owners,
                          const std::function<void(const std::string &)> &progress = {});
    std::vector<StoredImage> list() const;

    // A snapshot: `upper` (a sandbox's own layer, owned as `owners` says) written as a new layer on top of
    // the image `base_digest`, stored under `name` (replacing an image of that name). Returns the new
    // manifest's digest. std::runtime_error with why.
    std::string commit(const std::string &base_digest, const std::string &upper, const Owners &owners, const std::string &name);
    // Sends the image `name` to the registry `reference` names (docker push, without a daemon): the blobs
    // the repository lacks, then the manifest under the reference's tag. Returns the manifest's digest.
    // std::runtime_error with the registry's answer.
    std::string push(const std::string &name, const std::string &reference, const std::function<void(const std::string &)> &progress = {});
    // Removes the name; then every blob and unpacked layer no remaining name and none of `in_use` (manifest
    // digests of running sandboxes) needs. std::runtime_error when the name is unknown or its image is in
    // use. Returns how many bytes were freed.
    uint64_t remove(const std::string &name, const std::vector<std::string> &in_use);

    // The store's directory for a state directory: <state_dir>/images when one is configured, else next
    // to the default state directory (~/.local/state/actionhost/images).
    static std::string default_root(const std::string &configured_state_dir);

  private:
    std::string resolve(const std::string &reference, const std::function<void(const std::string &)> &progress);
    std::string pull(const std::string &reference, const std::function<void(const std::string &)> &progress);
    // The layer's directory, unpacked now if it is not yet; what it unpacks to comes off `budget`.
    std::string ensure_layer(const Descriptor &layer, const Owners &owners, uint64_t &budget, PreparedImage &out);
    void remember(const std::string &name, const std::string &digest);

    StoreSettings settings_;
    BlobStore blobs_;
};

}  // namespace actionhost::client::images
