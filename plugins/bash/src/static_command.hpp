// `is_static` run actions: the command runs in a fresh `bash -c` (not the persistent shell) in the
// action's `cwd`, or the working dir, as the sessions' user, with stdout and stderr merged. The fresh
// shell is discarded afterwards, with everything it left running; on a timeout it is killed.
#pragma once

#include <optional>
#include <string>

#include <actionhost/common/process/child_process.hpp>

#include "bash_session.hpp"

namespace actionhost::bash {

struct StaticContext {
    const SessionConfig *config = nullptr;  // identity, bash path, soft timeout
    int wake_fd = -1;                       // readable when the plugin shuts down
};

// Returns the observation JSON.
std::string run_static_command(const RunRequest &request, const StaticContext &context, const EmitFn &emit);

// How one fresh shell ended: its output (stripped, truncated unless `hidden`), its exit code, and the
// timeout suffix when a limit ended it (then it was killed with its whole session).
struct ChildOutcome {
    std::string content;
    int exit_code = -1;
    std::string kill_suffix;  // "" when it finished by itself
    bool stopped = false;     // the plugin is shutting down
};
struct ChildLimits {
    bool soft = true;                    // the no-change timeout of the session config applies
    std::optional<double> hard_s;        // hard timeout, seconds
    std::string (*hard_suffix)(double);  // the text a hard timeout appends
    bool hidden = false;
};
// Reads the child's merged output until it exits (or a limit or shutdown ends it), then discards the
// session it leads. Shared by `is_static` commands and the CLI mode.
ChildOutcome collect_child(common::ChildProcess &child, const ChildLimits &limits, const StaticContext &context,
                           const EmitFn &emit);
// The short hostname, as bash's \h prints it.
std::string short_hostname();

}  // namespace actionhost::bash
