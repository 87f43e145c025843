// `ahctl run` as a command-line tool runs commands: output printed as it comes and never truncated,
// no return while the command is quiet (only -t bounds it), the command's exit code, Ctrl-C ends the
// command and a runtime this command started. (`run --agent` and `exec` keep the agent's semantics.)
#pragma once

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "workspace_commands.hpp"

namespace ahctl {

// The exit code of a `run` observation; -1 when the command had not finished.
int exit_code_of(const nlohmann::json &observation);

// How `ahctl run` runs the command, as `docker run` does: without a terminal unless `tty` (then on the
// session's terminal, its stderr apart), and with ahctl's stdin as its stdin when `interactive`.
struct LiveRunMode {
    bool tty = false;
    bool interactive = false;
};

// Runs the `run` action `args` (command, cwd) in the runtime `open` starts; returns the exit code.
int run_live(const Options &options, OpenRuntime open, nlohmann::json args, LiveRunMode mode);

}  // namespace ahctl
