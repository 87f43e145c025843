// Opening a path that was checked by name, so that what is opened is what was checked: no symbolic
// link is followed anywhere on the way (openat2 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, Linux
// 5.6). A link swapped into the path after the check makes the open fail with ELOOP instead of
// leading elsewhere. Used where a path is resolved first and opened later: the host's confined file
// reads, the sandbox's workspace (backend and ah-sandbox-init).
#pragma once

#include <cstdint>
#include <string>

namespace actionhost::common {

// openat2(dir_fd, path, {flags, no links}): the new descriptor (the caller's), or -1 with errno set
// (ELOOP when a link is on the way). `flags` as for open(2); O_CLOEXEC is added. Any thread.
int open_without_links(int dir_fd, const std::string &path, uint64_t flags);

}  // namespace actionhost::common
