// Zip archives for /upload_file and /download_files, with the checks untrusted archives need.
#pragma once

#include <actionhost/common/result.hpp>

#include <cstdint>
#include <string>

namespace actionhost::host {

struct UnzipLimits {
    uint64_t max_total_bytes = 4ull << 30;  // sum of uncompressed sizes (zip-bomb guard)
    uint64_t max_entries = 100000;
};

// Unpacks `zip_path` into `dest` (which exists). Every entry is checked first — absolute names, `..`
// components (zip-slip), encryption, declared sizes — then unpacked into a staging directory inside
// `dest` while counting real bytes, then moved into place. On failure (with why) nothing in `dest` has
// changed.
common::Status unzip_safely(const std::string &zip_path, const std::string &dest, const UnzipLimits &limits);

// Writes a zip of every regular file below `root` (names relative to `root`; symbolic links are not
// followed, so nothing outside `root` is read) to `zip_path`. A file `root` gives an empty archive.
// Fails with why.
common::Status zip_tree(const std::string &root, const std::string &zip_path);

}  // namespace actionhost::host
