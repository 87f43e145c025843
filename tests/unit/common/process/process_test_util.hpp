// Helpers of the common/process tests: what a real process has open, and reading a child's pipe.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>

namespace actionhost::testing {

// The descriptor numbers open in process `pid` (0: this process), from /proc/<pid>/fd.
std::set<int> open_descriptors(pid_t pid = 0);

// The descriptors open in the freshly exec'd child `pid` once they equal `expected`, or after 5 s what
// they are then. spawn() returns after the exec, but the program's dynamic loader may still hold
// ld.so.cache or a library open as fd 3 for a moment (seen under ASan in CI); a descriptor leaked from us
// stays open for the child's whole life, so waiting for the loader hides no leak.
std::set<int> descriptors_once_loaded(pid_t pid, const std::set<int> &expected);

// Everything readable from the non-blocking `fd` until end-of-file, or what came within `timeout_ms`.
std::string read_until_eof(int fd, int timeout_ms = 10000);

// The first line readable from `fd` (without its newline), waiting at most `timeout_ms`.
std::string read_line(int fd, int timeout_ms = 10000);

}  // namespace actionhost::testing
