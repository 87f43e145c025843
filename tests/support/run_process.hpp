// Runs a command to completion with its stdout+stderr captured (bounded in time).
#pragma once

#include <string>
#include <vector>

namespace actionhost::testing {

struct ProcessResult {
    int exit_code = -1;  // -1 when killed by a signal or timed out
    bool timed_out = false;
    std::string output;  // stdout and stderr interleaved
};

// One POSIX shell word for any text, for commands run with `sh -c`: common::shell_word.
std::string sh_word(const std::string &text);

// `extra_env` ("NAME=value" entries) is added to the test's environment, replacing entries of the same name.
ProcessResult run_process(const std::vector<std::string> &argv, double timeout_s = 60.0,
                          const std::vector<std::string> &extra_env = {});

}  // namespace actionhost::testing
