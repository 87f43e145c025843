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

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/result.hpp>

namespace actionhost::browser {

// Creates `dir` (one level, not through a link) if missing and writes `content` to a new file `name`
// in it (an existing entry of that name is replaced only if it is a regular file). `owner`: the user the
// file and a created directory are given to (unset: the host's own). Returns the file's path.
common::Result<std::string> write_workspace_file(const std::string &dir, const std::string &name, std::string_view content,
                                                 const std::optional<common::UserSwitch> &owner);

// The regular file `name` (a plain name) of the directory `dir`, opened for reading through neither a
// link at `dir` nor at `name`, not blocking (a FIFO planted there cannot hang the host: it is refused),
// and with no second name (a hard link would make it a file of elsewhere).
common::Result<common::io::UniqueFd> open_own_file(const std::string &dir, const std::string &name);

// The same as write_workspace_file with what `source` (from open_own_file) holds; `shown` names it in
// errors.
common::Result<std::string> copy_into_workspace(int source, const std::string &shown, const std::string &dir, const std::string &name,
                                                const std::optional<common::UserSwitch> &owner);

}  // namespace actionhost::browser
