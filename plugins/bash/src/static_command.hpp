// `is_static` run actions: the command runs in a fresh `bash -c` (not the persistent shell) in the
// action's `cwd`, or the working dir, as the sessions' user, with stdout and stderr merged. The fresh
// shell is discarded afterwards, with everything it left running; on a timeout it is killed.
#pragma once

#include <string>

#include "bash_session.hpp"

namespace actionhost::bash {

struct StaticContext {
    const SessionConfig *config = nullptr;  // identity, bash path, soft timeout
    int wake_fd = -1;                       // readable when the plugin shuts down
};

// Returns the observation JSON.
std::string run_static_command(const RunRequest &request, const StaticContext &context, const EmitFn &emit);

}  // namespace actionhost::bash
