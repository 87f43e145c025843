// A path a person named on this machine, resolved by walking it one name at a time, never by a call
// that follows links on its own (std::filesystem::canonical, open(2)). Used where the caller (often root)
// acts on a directory someone else may write: the sandbox's workspace, the local side of `ahctl cp`.
//
// A symbolic link on the way is followed only when it belongs to root or to the caller: another user
// who owns a link there could point it at any directory the caller can write. Checking the links first
// and opening afterwards is not enough — a directory may be swapped for a link between the two — so the
// result has no link left in it, and is then opened refusing any link (open_without_links.hpp): a swap
// made later fails instead of redirecting.
//
// Threads: any.
#pragma once

#include <string>

#include <actionhost/common/result.hpp>

namespace actionhost::common {

// The absolute path `path` names, with every symbolic link replaced by what it points to; the names that
// do not exist yet are kept as given. `what` names the path in failures ("the workspace /x"): a link of
// another user ("WHAT passes through the symbolic link L of uid N, who could point it anywhere"), a part
// that is not a directory, more than 40 links.
Result<std::string> resolve_through_trusted_links(const std::string &path, const std::string &what);

}  // namespace actionhost::common
