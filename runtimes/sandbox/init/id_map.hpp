// Which machine ids the sandbox's ids are: the user namespace's uid_map and gid_map.
//
// Root inside is never root outside. The sandbox's user (the ids the host and its commands run as)
// is the workspace's owner on the machine ("keep-id", as rootless Podman's --userns=keep-id), so files
// written in the workspace belong to the person whose workspace it is and git's ownership checks hold
// inside. Every other id inside is an unprivileged id outside:
//   - started by root: ids 0..65535 inside are a fixed range of the machine's ids, BASE..BASE+65535
//     (BASE from an `actionhost:BASE:COUNT` line in /etc/subuid and /etc/subgid, else kDefaultIdBase),
//     except the sandbox's user, which is the workspace owner. A workspace owned by root is first
//     handed to BASE+uid (see workspace_handover.hpp), so no sandbox process and no file it writes is
//     ever root on the machine. The range is shared by every sandbox, like Docker's userns-remap
//     ("dockremap"): sandboxes are kept apart by their namespaces, not by their ids.
//   - started by anyone else: the kernel lets an unprivileged caller map exactly its own ids, so the
//     sandbox's user is the caller and no other id exists inside (not even root).
#pragma once

#include <sys/types.h>

#include <string>

namespace sandbox {

// Above systemd's range for container ids (524288..1879048191) and below 2^31, so it collides with no
// regular, system or dynamic user, nor with the ranges useradd hands to /etc/subuid (from 100000 up).
inline constexpr unsigned long kDefaultIdBase = 1879048192;  // 0x70000000
inline constexpr unsigned long kIdRangeSize = 65536;

struct IdMaps {
    std::string uid_map, gid_map;  // the text written to /proc/<pid>/{uid,gid}_map
    bool deny_setgroups = false;   // an unprivileged caller must write "deny" to setgroups first
    uid_t outside_uid = 0;         // the machine's id of the sandbox's user
    gid_t outside_gid = 0;
};

struct IdRequest {
    uid_t caller_uid;    // effective ids of ah-sandbox-init
    gid_t caller_gid;
    uid_t inside_uid;    // the sandbox's user
    gid_t inside_gid;
    uid_t owner_uid;     // the workspace's owner on the machine (after any handover)
    gid_t owner_gid;
    unsigned long uid_base = kDefaultIdBase;  // root callers only
    unsigned long gid_base = kDefaultIdBase;
};

// Throws std::invalid_argument when the request cannot be mapped safely (an inside id outside
// 0..65535 for a root caller, a workspace owned by root).
IdMaps compute_id_maps(const IdRequest &r);

// The uid_map (or gid_map) text of the user namespace an idmapped workspace mount is made with
// (idmapped_workspace.hpp): the workspace owner as stored on disk, `disk_id`, is the sandbox's user,
// `kernel_id`; every other id of the range [base, base + kIdRangeSize) stays itself, so a file the
// sandbox's root or any other id inside creates there can be stored (as that id of the range, never a
// machine id) instead of failing with EOVERFLOW. A `disk_id` inside the range trades places with
// `kernel_id`; one outside it is the only id from outside the range the mount knows.
std::string mount_id_map(unsigned long disk_id, unsigned long kernel_id, unsigned long base);

// The base of `name`'s range in a subordinate-id file (/etc/subuid, /etc/subgid): the first line
// `name:BASE:COUNT` with COUNT >= kIdRangeSize, else `fallback`.
unsigned long subordinate_base(const std::string &file, const std::string &name, unsigned long fallback);

}  // namespace sandbox
