// The backend's half of sandbox.disk_limit: the image file ah-sandbox-init mounts as the sandbox's own
// disk (init/disk_mount.hpp says how and why). An empty ext4 file system of the asked size is made once
// per size with mkfs.ext4 (e2fsprogs, on every Debian) into a template, and each sandbox gets a sparse
// copy of it: a few hundred kB written per start instead of a mkfs run (~20 ms).
//
// Threads: any; concurrent starts may race to make a template, and each makes its own under a temporary
// name, the first rename wins.
#pragma once

#include <cstdint>
#include <string>

namespace actionhost::sandbox_runtime {

// sandbox.disk_limit ("2g", "512m", "1073741824"; "" or "0": none) in bytes. Throws std::runtime_error
// for what is not a size or is below 16 MiB (ext4 needs room for itself).
uint64_t parse_disk_limit(const std::string &text);

// Writes a new sparse image of an empty ext4 file system of `bytes` at `image`, from the template of that
// size in `template_dir` (made when missing). Throws std::runtime_error with why.
void make_disk_image(const std::string &template_dir, uint64_t bytes, const std::string &image);

}  // namespace actionhost::sandbox_runtime
