// The ahctl commands. Each returns the process exit code (cli.hpp ExitCode, or a command's own code).
#pragma once

#include <actionhost/client/config.hpp>

#include "cli.hpp"

namespace ahctl {

// The configuration the options select: --config (or ./config.toml), then -r, -w, --state-dir, --keep,
// --repo, --image and --set over it. Warns once (unless -q) of OpenHands keys actionhost ignores.
actionhost::client::Config load_config(const Options &options, const actionhost::client::Environment &env);

int run_command(const Options &options);

}  // namespace ahctl
