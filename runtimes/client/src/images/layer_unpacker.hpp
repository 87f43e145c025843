// Unpacking one image layer (a tar stream, gzip, zstd or plain, read with libarchive) into a directory
// of the image store, with the layer's OCI meaning made the overlay filesystem's: a whiteout
// (".wh.NAME") becomes a 0:0 character device, an opaque directory (".wh..wh..opq") the
// "user.overlay.opaque" attribute (the sandbox mounts its overlay with userxattr, in its own user
// namespace); hard links, symbolic links, FIFOs, modes, times and user.* attributes as they are.
//
// Layers are untrusted. Nothing is ever written outside the directory: every entry is placed through
// directory descriptors walked without following a link (a link the layer made refuses a later entry
// that would pass through it), and a name with ".." or a hard link to a file outside the layer refuses
// the layer. Device nodes and sockets are skipped with a note; file capabilities (security.*) and
// trusted.* attributes are dropped (they would mean the machine's root). The bytes unpacked are counted
// against a limit (a decompression bomb stops there); runs of zeros are written as holes, so a sparse
// file costs its real size. Owners: for a root caller every owner becomes the sandbox's id range (base +
// id, 65534 for ids past the range) and set-user/group-ID bits are kept for the inside, where they mean
// the range's ids (the store is the caller's alone, 0700: no one on the machine can run them); for an
// unprivileged caller everything is the caller's and those bits are dropped.
//
// Threads: any; nothing is shared.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <actionhost/common/result.hpp>

namespace actionhost::client::images {

struct UnpackPolicy {
    bool map_owners = false;  // a root caller: owners into the id range below
    uint64_t uid_base = 0, gid_base = 0;
    uint64_t max_bytes = uint64_t{16} << 30;      // bytes unpacked, in all (holes included)
    uint64_t max_file_size = uint64_t{64} << 30;  // a single file's logical size
    uint64_t max_entries = 1'000'000;
};

struct UnpackReport {
    uint64_t entries = 0;
    uint64_t bytes = 0;              // bytes unpacked (what the tar stream held)
    std::vector<std::string> notes;  // what was skipped or dropped, one line each (at most 20)
    uint64_t notes_left_out = 0;
};

// Unpacks the layer at `archive_path` into `dir` (an empty directory). Fails with why; `dir` may then
// hold part of the layer (the caller removes it).
common::Status unpack_layer(const std::string &archive_path, const std::string &dir, const UnpackPolicy &policy,
                            UnpackReport &report);

}  // namespace actionhost::client::images
