// Reading /proc/<pid>/... of a process that may be ending while it is read.
#pragma once

#include <string>

namespace actionhost::testing {

// The whole file, or what could be read of it: "" when the process is gone. Never throws (reading
// through std::istreambuf_iterator throws ios_base::failure when the process exits mid-read: ESRCH).
std::string read_proc_file(const std::string &path);

}  // namespace actionhost::testing
