// Handing a workspace that belongs to root (or to another id of the sandbox range) to the sandbox's
// user before a root caller starts the sandbox, as OpenHands' runtime chowns its workspace to its user.
// Without it the sandbox's user could not write there (root is not mapped inside), and mapping it to
// root would make the sandbox's files root's on the machine. Files of the machine's real users are left
// alone (their owners are kept-id or shown as nobody inside).
#pragma once

#include <sys/types.h>

#include <string>

namespace sandbox {

struct Handover {
    uid_t uid;  // the machine ids the workspace's root-owned and in-range entries get
    gid_t gid;
    unsigned long uid_base, gid_base;  // the sandbox range (kIdRangeSize ids from each base)
};

// Whether the owner (uid, gid) of the workspace must be handed over before mapping it.
bool needs_handover(uid_t owner_uid, gid_t owner_gid, const Handover &h);

// Changes the owner of every entry under the directory `dir_fd` is open on (itself included; symbolic
// links themselves, never what they point to; not crossing into other file systems; not files with
// several hard links, which may be the machine's own under another name) that belongs to root or to
// the sandbox range. The walk starts from that descriptor (see workspace_dir.hpp: the directory that
// was checked, not whatever its name leads to by now) and goes through open directories only, so a
// concurrent swap of a directory for a link cannot redirect it. `dir` names it in errors. `dir_fd`
// stays open and the caller's. Returns the number of entries changed; throws std::runtime_error when
// the directory itself cannot be changed.
long hand_over_tree(int dir_fd, const std::string &dir, const Handover &h);

// Why the tree under `dir_fd` (same mount only, links not followed) must not be mapped to the sandbox's
// user as a whole (idmapped_workspace.hpp), or "" when it may: a file with a name outside it (a hard link
// — the machine's file, perhaps, under another name), a set-user/group-ID file or one with file
// capabilities (its privilege would be the sandbox's to rewrite). The handover leaves such files alone or
// clears their bits.
std::string reason_not_to_map(int dir_fd);

}  // namespace sandbox
