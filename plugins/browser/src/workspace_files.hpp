// Files the browser plugin puts into the agent's workspace — screenshots, copies of downloads — written by
// the host (root in a sandbox) into a directory the agent controls: never through a link the agent
// planted there (the directory and the file are opened with O_NOFOLLOW, the file created new), and
// handed to the browser's user, so the agent owns what it asked for and gains nothing else.
//
// Threads: any; nothing is shared.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/result.hpp>

namespace actionhost::browser {

// Creates `dir` (one level, not through a link) if missing and writes `content` to a new file `name`
// in it (an existing entry of that name is replaced only if it is a regular file). `owner`: the user the
// file and a created directory are given to (unset: the host's own). Returns the file's path.
common::Result<std::string> write_workspace_file(const std::string &dir, const std::string &name, std::string_view content,
                                                 const std::optional<common::UserSwitch> &owner);

// The same with the content of the regular file `source` (opened without following a link).
common::Result<std::string> copy_into_workspace(const std::string &source, const std::string &dir, const std::string &name,
                                                const std::optional<common::UserSwitch> &owner);

}  // namespace actionhost::browser
