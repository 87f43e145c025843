// The ahctl commands. Each returns the process exit code (cli.hpp ExitCode, or a command's own code).
#pragma once

#include "cli.hpp"

namespace ahctl {

int run_command(const Options &options);

}  // namespace ahctl
