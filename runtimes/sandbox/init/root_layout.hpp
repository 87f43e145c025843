// The sandbox's file system: only what commands need, nothing of the machine's state or secrets.
//
//   /usr /bin /sbin /lib* /opt   the machine's, read-only, nosuid, nodev (software, not data)
//   /etc                         the machine's configuration through a generated read-only view
//                                (etc_view.hpp: the sandbox's own passwd/group/hosts, no secrets)
//   /workspace                   the workspace, read-write, nosuid, nodev
//   /tmp /var/tmp /run /dev/shm  one private tmpfs ("scratch") of bounded size, nosuid, nodev
//   /root, /home/<user>          private homes on the same scratch tmpfs (nothing of the machine's)
//   /var                         empty but for tmp (and run, lock links): no daemon state of the machine
//   /dev                         null zero full random urandom tty, a private devpts, shm
//   /proc                        the sandbox's own, machine-wide parts masked (proc_view.hpp)
//   /sys                         CPU topology and the sandbox's own cgroups only (sys_view.hpp)
//   the install tree             read-only at its own path (the host and its modules)
//   [sandbox] volumes            the user's directories and files, nosuid, nodev; `:ro` ones read-only
//                                (mount_setattr, recursive; root inside cannot remount them: no
//                                CAP_SYS_ADMIN in its bounding set and mount(2) refused by seccomp)
// /srv /mnt /media /home's other users, /root's files, /var/lib, /boot and every other tree of the
// machine are absent. The root itself is a read-only tmpfs of mount points.
//
// With an image (Options::image()), the root is the image's instead — nothing of the machine's software
// or /etc: an overlay of the image's unpacked layers (read-only, shared by every sandbox of the image)
// under the sandbox's own upper directory, so root inside can install packages and write /usr/local,
// /etc or /opt while the image never changes. /etc/hostname, /etc/hosts and /etc/resolv.conf are the
// sandbox's (bound over the image's), the homes the image's own; the scratch tmpfs, /dev, /proc, /sys
// and the workspace as above; the host bundle read-only at /openhands/actionhost.
//
// All tmpfs space is one mount, so together it is bounded by one size below the memory limit: filling
// it ends in "No space left on device", never in the OOM killer taking the sandbox's server.
//
// Two phases, because the sandbox's ids may not even pass the directories the machine's trees live
// under (a workspace in root's 0700 home, the 0700 run directory): take_machine_trees() runs with the
// creator's ids and only *takes* (detached clones, nothing created), then enters the new root's tmpfs;
// assemble_root() runs with the sandbox's ids and creates and attaches everything with paths relative
// to that root, never walking the machine's directories again.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>

#include "etc_view.hpp"
#include "mount_ops.hpp"
#include "options.hpp"
#include "workspace_dir.hpp"

namespace sandbox {

struct RootPlan {
    const Options *options;
    Identity identity;
    long scratch_mb;  // size of the scratch tmpfs
    std::vector<std::pair<std::string, std::string>> cgroup_views;  // see sys_view.hpp
    // The ids (inside) phase 2 runs as: the new root's tmpfs, made in phase 1, must already be theirs.
    uid_t builder_uid = 0;
    gid_t builder_gid = 0;
    // The directory the outside checked and handed over at options->workspace: the mount is refused
    // if the path leads elsewhere now (see workspace_dir.hpp).
    DirIdentity workspace;
    // An idmapped detached mount of that directory, made outside (idmapped_workspace.hpp), attached
    // instead of a clone of it; -1 when none.
    int workspace_mount = -1;
};

// A volume of the user's, taken: where it goes, whether it is a file (else a directory).
struct TakenVolume {
    std::string inside;
    DetachedMount tree;
    bool file = false;
};

// What was taken from the machine, to be attached by assemble_root().
struct MachineTrees {
    std::map<std::string, DetachedMount> software;  // "/usr" → read-only clone
    std::map<std::string, std::string> links;       // "/bin" → "usr/bin" (merged-/usr systems)
    std::vector<std::pair<std::string, DetachedMount>> extra, rw, sys;  // inside path → clone
    std::map<std::string, DetachedMount> devices;   // "null" → clone of /dev/null
    DetachedMount workspace;
    std::vector<TakenVolume> volumes;  // sorted by inside path: a volume inside another goes after it
    // With an image: its layers (bottom first), the overlay's upper and work directories, the new root's
    // mount point (all O_PATH, opened with the creator's ids) and the host bundle.
    std::vector<actionhost::common::io::UniqueFd> layers;
    actionhost::common::io::UniqueFd upper, work, root_mount;
    DetachedMount bundle;
};

// Phase 1 (creator's ids, inside the new mount namespace): makes every mount private, takes the trees,
// attaches the new root's empty tmpfs on options->root_mount and makes it the working directory.
MachineTrees take_machine_trees(const RootPlan &plan);

// Phase 2 (the sandbox's ids, working directory = the new root): builds everything and pivots into it.
// Throws std::runtime_error naming the step.
void assemble_root(const RootPlan &plan, MachineTrees trees);

// Brings the loopback interface of a fresh network namespace up.
void loopback_up();

}  // namespace sandbox
