// The `run` action as OpenHands' CLIRuntime runs it (openhands/runtime/impl/cli/): every command in a fresh
// `bash -c` of its own process group, no interactive input, a timeout kills the group. Used when the
// host runs inside a client process (the `cli` runtime: ACTIONHOST_BASH_MODE=cli).
//
// One deliberate difference from CLIRuntime, which starts every command in the workspace with the
// client's environment: the directory and the exported variables a command ends with carry over to
// the next command of the same session, so `cd` and `export` behave as on every other runtime.
#pragma once

#include <string>
#include <vector>

#include "run_request.hpp"
#include "static_command.hpp"

namespace actionhost::bash {

// What a CLI session carries from one command to the next.
struct CliShellState {
    std::string cwd;
    std::vector<std::string> env;  // KEY=VALUE
};

// CLIRuntime's refusal of `is_input` (an `error` observation, error_id AGENT_ERROR$BAD_ACTION).
std::string cli_input_refused_json(const std::string &command);
// "\n[The command timed out after <t:.1f> seconds.]"
std::string cli_timeout_suffix(double seconds);

// Runs `request` in a fresh shell that starts in `state.cwd` with `state.env`, and updates `state`
// from where the shell ended. `scratch_dir` holds the file the shell reports its end state in.
// Returns the observation JSON.
std::string run_cli_command(const RunRequest &request, const StaticContext &context, CliShellState &state,
                            const std::string &scratch_dir, const EmitFn &emit);

}  // namespace actionhost::bash
