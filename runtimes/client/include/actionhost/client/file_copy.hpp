// copy_to / copy_from as OpenHands' runtime offers them (over /upload_file and /download_files), for
// any backend:
//   copy_to(local, dest)   a file → <dest>/<name>; a directory → zipped with names relative to its
//                          parent (its own name kept) and sent with recursive=true → <dest>/<dir>/...
//   copy_from(path)        the zip /download_files makes of a sandbox directory; for a file (whose
//                          download is an empty zip) the file is first copied into a private temporary
//                          directory in the sandbox, which is downloaded and removed.
//
// Bounded memory either way: archives travel through temporary files and are read and written piece by
// piece; what a copy out of a sandbox may unpack to is limited (CopyOptions::max_bytes, counted in
// logical sizes: a sparse file counts whole, and arrives sparse), and every entry is checked before
// anything is written. FIFOs, sockets and devices are never opened, on either side: they are skipped and
// reported. Nothing is ever written through, or read through, a link that leads out of the tree copied.
//
// Both ways keep Unix permission bits (masked to 0777 on arrival: no setuid, setgid or sticky bit),
// modification times, and symbolic links as links (never followed): a link is copied when it stays inside
// the tree copied (by its text and resolved there); one that leads out (an absolute target, `..` above
// the tree, or through other links) is skipped and reported — the agent's link to /etc/shadow arrives as
// nothing, never as the file. Directories' own modes and times are not kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actionhost/client/wire_client.hpp"

namespace actionhost::client {

struct CopyOptions {
    // What a copy out of a sandbox may unpack to, in all (4 GiB, as the host's own unpack limit).
    uint64_t max_bytes = 4ull << 30;
    // When set, receives "PATH: why" for each thing not copied (a FIFO, a socket, a device).
    std::vector<std::string> *skipped = nullptr;
};

// Throws WireError (a missing local source fails before anything is sent, as OpenHands'
// FileNotFoundError).
void copy_to(WireClient &wire, const std::string &local_src, const std::string &sandbox_dest, bool recursive = false,
             const CopyOptions &options = {});

// The zip of `sandbox_path` (names relative to it for a directory; the file's own name for a file), in
// memory: for small trees. Throws WireError ("404: File not found" for a missing path, or a zip larger
// than options.max_bytes).
std::string copy_from(WireClient &wire, const std::string &sandbox_path, const CopyOptions &options = {});

// copy_from, unpacked below `local_dir` (created): a directory arrives as <local_dir>/<its name>/...,
// a file as <local_dir>/<its name>. Every entry is checked first — inside `local_dir`, the total within
// options.max_bytes — and nothing is written when one fails. Returns the local paths written.
std::vector<std::string> copy_from_into(WireClient &wire, const std::string &sandbox_path, const std::string &local_dir,
                                        const CopyOptions &options = {});

// One entry of a zip held in memory.
struct ZipEntry {
    std::string name;     // as stored, '/'-separated
    std::string content;
};
// Reads every file entry of a zip (directories skipped), unpacking at most `max_bytes` in all. Throws
// std::runtime_error for a bad or too large archive.
std::vector<ZipEntry> read_zip(const std::string &zip_bytes, uint64_t max_bytes = 64ull << 20);

}  // namespace actionhost::client
