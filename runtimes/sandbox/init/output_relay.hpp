// The sandbox's output (its host's stdout and stderr) reaches the machine only through a pipe that
// ah-sandbox-init drains into its own stderr, the run directory's sandbox.log, up to a bound.
//
// The host's output descriptors used to be that log file itself: any command of the sandbox could take
// a copy (pidfd_getfd, /proc/<host>/fd) and write into a file of the machine — forged lines, or the
// machine's disk filled. Through the pipe it writes only bytes, at most kLogCap of them.
#pragma once

#include <cstddef>

namespace sandbox {

inline constexpr size_t kLogCap = 16u << 20;

class OutputRelay {
  public:
    // Takes `pipe_fd` (non-blocking read end); copies to `log_fd`. Past `cap` bytes a last line says so
    // and the pipe is closed (writers then get EPIPE).
    OutputRelay(int pipe_fd, int log_fd, size_t cap = kLogCap) : pipe_fd_(pipe_fd), log_fd_(log_fd), cap_(cap) {}
    ~OutputRelay();
    OutputRelay(const OutputRelay &) = delete;
    OutputRelay &operator=(const OutputRelay &) = delete;
    // The descriptor to poll for input; -1 once every writer is gone or the cap was reached.
    int fd() const { return pipe_fd_; }
    // Copies one read's worth of what is there now; true when it read something and the pipe is still
    // open (more may be waiting), false once the pipe is empty or closed.
    bool pump();
    // What the last processes wrote before the end is still worth having: copies the rest, then closes.
    void drain();

  private:
    void close_pipe();
    int pipe_fd_, log_fd_;
    size_t cap_, logged_ = 0;
};

}  // namespace sandbox
