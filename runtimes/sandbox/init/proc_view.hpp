// The sandbox's /proc: a new proc instance (its own pid namespace) with the machine-wide parts that a
// container must not touch made read-only or masked, as Docker's default does:
//   read-only: /proc/sys, /proc/sysrq-trigger, /proc/irq, /proc/bus, /proc/fs (kernel settings, the
//              magic SysRq key, interrupt routing, buses);
//   masked:    /proc/kcore, /proc/keys, /proc/timer_list, /proc/sched_debug, /proc/latency_stats,
//              /proc/timer_stats, /proc/kallsyms, /proc/kmsg (files: /dev/null over them) and
//              /proc/acpi, /proc/scsi, /proc/asound (directories: an empty read-only tmpfs over them).
// The sandbox's ids are unprivileged on the machine, so most of these are refused anyway: this is the
// second wall, and it holds for a caller whose ids the kernel treats as privileged too.
#pragma once

#include <string>

#include "mount_ops.hpp"

namespace sandbox {

// Mounts proc at `target` (a directory of the new root) and applies the masks. `dev_null` is a detached
// clone of /dev/null. Must run before the machine's root is left (a new proc instance is only allowed
// while the caller's own /proc is fully visible).
void mount_proc_view(const std::string &target, const std::string &dev_null_path);

}  // namespace sandbox
