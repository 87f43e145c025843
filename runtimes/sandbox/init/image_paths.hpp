// Phase 2 of an image's root works by path ("./tmp", "./etc/hosts") from inside the image's overlay,
// while the process's root is still the machine's "/" (pivot_root comes last). An absolute symbolic link
// of the image's — `tmp -> /home/alice` — would then lead mkdir, chmod and move_mount to the machine's
// directories, with the sandbox's capabilities over every id it maps (a red-team run made directories of
// other users mode 1777 this way). Before any of that, each directory phase 2 uses is made a real
// directory of the image's root: walked one name at a time from the root's descriptor without following
// a link, and where the image has a link or a file, that entry is replaced (in the sandbox's own layer)
// by a directory. Nothing runs in the sandbox yet, so nothing can put a link back meanwhile.
#pragma once

#include <string>
#include <vector>

namespace sandbox {

// Every one of `paths` (absolute, inside the root `root_fd` is open on) and each directory on the way is
// a directory, not a link, afterwards. Returns one line per entry replaced (to warn about). Throws
// std::runtime_error naming the path and errno.
std::vector<std::string> make_paths_real(int root_fd, const std::vector<std::string> &paths);

}  // namespace sandbox
