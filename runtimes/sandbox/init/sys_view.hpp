// The sandbox's /sys: not the machine's sysfs (its devices, firmware, kernel knobs and every cgroup of
// the machine) but a read-only tmpfs holding only what programs read to size themselves:
//   /sys/devices/system/cpu and /sys/devices/system/node (CPU count, topology: glibc's get_nprocs, numa),
//   /sys/fs/cgroup/<controller> — the sandbox's *own* cgroups, read-only (with the cgroup namespace the
//   sandbox is in, /proc/self/cgroup says "/" for them), so a runtime reading its memory limit (JVM,
//   Node, the bash plugin's out-of-memory report) finds it where it looks in a container.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mount_ops.hpp"

namespace sandbox {

using SysTrees = std::vector<std::pair<std::string, DetachedMount>>;  // path under /sys → read-only clone

// Takes what the view shows from the machine's /sys. `cgroups` pairs each of the sandbox's cgroup
// directories on the machine with the name it gets under /sys/fs/cgroup ("" for a cgroup v2 directory,
// which is /sys/fs/cgroup itself).
SysTrees take_sys_trees(const std::vector<std::pair<std::string, std::string>> &cgroups);

// Mounts the view at `target`: a read-only tmpfs with `trees` attached.
void mount_sys_view(const std::string &target, SysTrees trees);

}  // namespace sandbox
