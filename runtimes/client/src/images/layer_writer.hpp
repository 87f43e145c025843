// A sandbox's own layer (the overlay's upper directory) written back as an OCI layer — a tar (libarchive,
// pax) in OCI's terms, the inverse of layer_unpacker.hpp: an overlay whiteout (a 0:0 character device)
// becomes ".wh.NAME", an opaque directory (user.overlay.opaque) gets ".wh..wh..opq", hard links stay hard
// links, and owners in the sandbox's id range go back to the ids they are inside (uid_base + 5 → 5), so
// the layer means the same in any store, on any machine. Read without following a link, through
// directory descriptors; the layer is streamed into the store, never held in memory.
//
// Threads: any; nothing is shared.
#pragma once

#include <cstdint>
#include <string>

#include "images/blob_store.hpp"

namespace actionhost::client::images {

struct LayerOwners {
    bool mapped = false;  // the files are owned by ids of a range starting here
    uint64_t uid_base = 0, gid_base = 0;
};

struct WrittenLayer {
    std::string digest;  // the uncompressed tar's: its blob digest and its diff id at once
    int64_t size = 0;
    uint64_t entries = 0;
};

// Writes the tree `upper` as a layer into `store`, refusing a layer whose files hold more than `max_bytes`
// (a sparse file counts at its full size: a tar stores every byte). std::runtime_error naming what could
// not be read, or the limit.
WrittenLayer write_layer(const std::string &upper, const LayerOwners &owners, const BlobStore &store, uint64_t max_bytes);

}  // namespace actionhost::client::images
