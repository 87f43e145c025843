// The sandbox's output (its host's stdout and stderr) reaches the machine only through a pipe that
// ah-sandbox-init drains into its own stderr, the run directory's sandbox.log, up to a bound.
//
// The host's output descriptors used to be that log file itself: any command of the sandbox could take
// a copy (pidfd_getfd, /proc/<host>/fd) and write into a file of the machine — forged lines, or the
// machine's disk filled. Through the pipe it writes only bytes, at most kLogCap of them.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace sandbox {

inline constexpr size_t kLogCap = 16u << 20;

// Waits for `child` (reaping it; `child_pidfd` wakes the wait at its exit) while copying what arrives on
// `pipe_fd` to `log_fd`. Past `cap` bytes a last line says so and the pipe is closed (writers then get
// EPIPE). Returns the child's wait status. EINTR (SIGTERM handling) is retried.
int relay_output_until_exit(pid_t child, int child_pidfd, int pipe_fd, int log_fd, size_t cap = kLogCap);

}  // namespace sandbox
