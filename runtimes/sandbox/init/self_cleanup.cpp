#include "self_cleanup.hpp"

#include <sys/mount.h>
#include <unistd.h>

#include <actionhost/runtime_support/remove_tree.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sandbox {

void remove_after_self_end(const Options &o) {
    // A disk of its own is mounted in this process's mount namespace (disk_mount.hpp), inside the run
    // directory: detached first, or removing the directory would stop at its mount point.
    if (!o.disk_dir.empty() && ::umount2(o.disk_dir.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
        std::fprintf(stderr, "ah-sandbox-init: cannot unmount the sandbox's disk %s: %s\n", o.disk_dir.c_str(), std::strerror(errno));
    // The records first: once they are gone, no client attaches to a sandbox that is being removed.
    for (const auto &path : o.expiry_removes)
        if (::unlink(path.c_str()) != 0 && errno != ENOENT)
            std::fprintf(stderr, "ah-sandbox-init: cannot remove %s: %s\n", path.c_str(), std::strerror(errno));
    if (!o.run_dir.empty() && !actionhost::runtime_support::remove_tree(o.run_dir))
        std::fprintf(stderr, "ah-sandbox-init: cannot remove all of %s\n", o.run_dir.c_str());
}

}  // namespace sandbox
