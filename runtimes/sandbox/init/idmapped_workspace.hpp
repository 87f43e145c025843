// The workspace of a root caller without the chown: where the kernel has idmapped mounts (5.12+) and the
// workspace's file system supports them, its owner on the machine (root, or an id of the sandbox range)
// appears inside as the sandbox's user, through a mount whose id mapping says so (and every other id of
// the sandbox range as itself, so the sandbox's root — the host — can create files there too), while every file stays
// the caller's on disk — git on the machine keeps trusting the repository. Made in P, the mapping's
// user namespace by a short-lived child (a namespace needs a process to make it), the mount detached and
// inherited by pid 1, which attaches it. Only the workspace's own mount is cloned: a mount inside it (a
// directory of the machine bound there) is not the owner's to give, and stays out. Where the mapping
// cannot be made (an older kernel, a file system without idmap support) or must not be (a file of the
// workspace has a hard link outside it: that file of elsewhere would be given too; a set-user-ID file or
// one with capabilities: the owner's privilege would be given), the caller falls back to handing the tree
// over (workspace_handover.hpp, which leaves such files alone or clears their bits) and says so. What the
// sandbox writes there is the owner's on the machine — root's — so nothing privileged may be made there:
// set-user/group-ID bits are refused (seccomp) and, with such a workspace, the sandbox has no
// CAP_SETFCAP (privileges.hpp).
#pragma once

#include <sys/types.h>

#include <string>

namespace sandbox {

struct IdmapRequest {
    uid_t disk_uid;    // the workspace's owner as stored on disk
    gid_t disk_gid;
    uid_t kernel_uid;  // the machine's id of the sandbox's user (its id in the range)
    gid_t kernel_gid;
    unsigned long uid_base, gid_base;  // the sandbox range: its other ids are mapped as themselves
};

// A detached, recursive clone of the directory `dir_fd` is open on, idmapped as `r` says and nosuid,
// nodev: its descriptor (close-on-exec), or -1 with `why` set. `path` names it in messages.
int idmapped_workspace(int dir_fd, const std::string &path, const IdmapRequest &r, std::string &why);

}  // namespace sandbox
