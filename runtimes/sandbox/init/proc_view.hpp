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
#include <utility>
#include <vector>

#include "mount_ops.hpp"

namespace sandbox {

// Settings of the sandbox's own namespaces written before /proc/sys becomes read-only, e.g. the SysV
// shared memory limits of its IPC namespace ("kernel/shmall" → "32768"). SysV segments outlive the
// processes that made them and belong to no tmpfs: without a bound, a command could pin memory that no
// OOM kill frees.
using NamespacedSettings = std::vector<std::pair<std::string, std::string>>;

// Mounts proc at `target` (a directory of the new root), writes `settings`, applies the masks.
// `dev_null_path` is a /dev/null to bind over masked files. Must run while the caller's own /proc is
// still fully visible (a new proc instance is only allowed then). Returns the settings that could not be
// written: the kernel lets only the namespace's root write them, and an unprivileged caller's sandbox
// has no root.
std::vector<std::string> mount_proc_view(const std::string &target, const std::string &dev_null_path,
                                         const NamespacedSettings &settings);

}  // namespace sandbox
