// Who the VS Code server runs as: the host's --username, resolved once before any fork.
#pragma once

#include <actionhost/common/result.hpp>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace actionhost::vscode {

struct RunAs {
    std::string name;
    std::string home;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;  // supplementary groups, computed before fork (initgroups is not fork-safe)
    bool switch_user = false;   // true when the child must setuid to another user
};

// OpenHands runs the server only for $RUNTIME_USERNAME, root or openhands; we also allow the user the
// host itself runs as (nothing to switch). A root host switches to the user; another host can only run
// the server as itself. A refusal says why, for the log line.
common::Result<RunAs> decide_run_as(const std::string &username, const std::optional<std::string> &runtime_username);

}  // namespace actionhost::vscode
