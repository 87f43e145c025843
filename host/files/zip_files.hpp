// Zip archives for /upload_file and /download_files, with the checks untrusted archives need.
#pragma once

#include <actionhost/common/result.hpp>

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace actionhost::host {

struct UnzipLimits {
    uint64_t max_total_bytes = 4ull << 30;  // sum of uncompressed sizes (zip-bomb guard)
    uint64_t max_entries = 100000;
};

// Who what an upload writes belongs to: the user the host runs commands as, when the host is root and
// that user is another (the agent must be able to edit what was copied in for it).
struct FileOwner {
    uid_t uid;
    gid_t gid;
};

// Unpacks `zip_path` into `dest` (which exists). Every entry is checked first — absolute names, `..`
// components (zip-slip), encryption, declared sizes, devices/FIFOs/sockets (refused: never created),
// symbolic links whose text leads out of `dest` (refused) — then unpacked into a staging directory inside
// `dest` while counting real bytes: directories and files first (each directory entered with O_NOFOLLOW,
// files created with O_NOFOLLOW), with the archive's Unix permission bits (& 0777; none: the umask's
// default) and modification time; links last, each then resolved beneath the staging directory (one that
// leads out through other links refuses the upload); all given to `owner` (when set), then moved into
// place; last, each directory entry's mode and time are set on the directory in place (deepest first,
// reached without links; an entry naming `dest` itself changes nothing). On failure (with why) nothing in
// `dest` has changed.
common::Status unzip_safely(const std::string &zip_path, const std::string &dest, const UnzipLimits &limits,
                            const std::optional<FileOwner> &owner = std::nullopt);

// Writes a zip of every regular file, directory and symbolic link below `root` (names relative to
// `root`; `root` itself has no entry; directory entries, which OpenHands' archive lacks, carry a
// directory's mode and time and keep empty ones) to `zip_path`, with their Unix modes and modification times; a link
// is packed as a link (its target's text) and never followed, so nothing outside `root` is read.
// FIFOs, sockets and devices are left out. A file `root` gives an empty archive. Fails with why.
common::Status zip_tree(const std::string &root, const std::string &zip_path);

}  // namespace actionhost::host
