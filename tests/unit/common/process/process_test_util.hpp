// Helpers of the common/process tests: what a real process has open, and reading a child's pipe.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>

namespace actionhost::testing {

// The descriptor numbers open in process `pid` (0: this process), from /proc/<pid>/fd.
std::set<int> open_descriptors(pid_t pid = 0);

// Everything readable from the non-blocking `fd` until end-of-file, or what came within `timeout_ms`.
std::string read_until_eof(int fd, int timeout_ms = 10000);

// The first line readable from `fd` (without its newline), waiting at most `timeout_ms`.
std::string read_line(int fd, int timeout_ms = 10000);

}  // namespace actionhost::testing
