// Runs a short helper program to its end, bounded in time: the administration commands of the user
// set-up (useradd) and the probes of what the image has (python3 -c "import ...").
#pragma once

#include <string>
#include <vector>

namespace actionhost::host {

struct CommandOptions {
    // Directories tried, in order, when argv[0] is a bare name not found on PATH (useradd lives in
    // /usr/sbin, which a user's PATH or a container's minimal one may not list).
    std::vector<std::string> fallback_dirs;
    bool quiet = false;        // stdin, stdout and stderr on /dev/null
    double timeout_s = 120;    // then SIGKILL
};

// The exit status, or -1 when it could not start, was killed by a signal or ran out of time.
int run_command(std::vector<std::string> argv, const CommandOptions &options = {});

}  // namespace actionhost::host
