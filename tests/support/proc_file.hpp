// Reading /proc/<pid>/... of a process that may be ending while it is read.
#pragma once

#include <string>

namespace actionhost::testing {

// The whole file, or what could be read of it: "" when the process is gone. Never throws (reading
// through std::istreambuf_iterator throws ios_base::failure when the process exits mid-read: ESRCH).
std::string read_proc_file(const std::string &path);

// The number after "<field>:" in the status file at `status_path` (/proc/<pid>/status,
// /proc/self/task/<tid>/status); -1 when the file or the field is missing.
long status_number(const std::string &status_path, const std::string &field);

// The resident memory (VmRSS) of process `pid` in KiB; -1 when it is gone or has none.
long resident_kib(int pid);

}  // namespace actionhost::testing
