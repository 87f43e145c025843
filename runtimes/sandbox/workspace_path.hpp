// The workspace's path as the sandbox backend hands it to ah-sandbox-init: resolved here, by walking
// it one name at a time, never by a call that follows links on its own (std::filesystem::canonical).
//
// A symbolic link on the way is followed only when it belongs to root or to the caller
// (common/trusted_path.hpp): another user who owns a link there could point it at any directory the
// caller (often root) can write, which the sandbox would then be handed. The result has no link left in
// it, and ah-sandbox-init opens it refusing any link (init/workspace_dir.hpp), so a swap made later fails
// the start instead of redirecting it.
#pragma once

#include <string>

#include <actionhost/common/result.hpp>

namespace actionhost::sandbox_runtime {

// The absolute path `path` names, with every symbolic link replaced by what it points to; the names
// that do not exist yet are kept as given. Fails on a link of another user ("it passes through the
// symbolic link L of uid N"), on a part that is not a directory, or after 40 links.
common::Result<std::string> resolve_workspace(const std::string &path);

// Makes the directories of `resolved` (a resolve_workspace result) that do not exist, each created in
// its parent opened without following links (openat2 RESOLVE_NO_SYMLINKS, then O_NOFOLLOW), so a link
// swapped in meanwhile makes it fail rather than create a directory elsewhere. Mode 0755 before umask.
common::Status make_workspace(const std::string &resolved);

}  // namespace actionhost::sandbox_runtime
