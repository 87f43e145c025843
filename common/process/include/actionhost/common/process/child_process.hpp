// A child process in a session of its own, on a pseudo-terminal its owner holds (the bash plugin's
// persistent shells, the host's terminals) or on a pipe (is_static commands), started as a ShellIdentity.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actionhost/common/process/shell_identity.hpp"

namespace actionhost::common {

struct SpawnSpec {
    std::string program;  // absolute path
    std::vector<std::string> argv;
    const ShellIdentity *identity = nullptr;
    std::string working_dir;
    bool use_pty = true;
    unsigned short rows = 1000;  // OpenHands' tmux pane is 1000x1000
    unsigned short cols = 1000;
    // false: the terminal is set for a program typing into it (no echo, LF kept as LF), as the bash
    // plugin's shells need; true: the kernel's defaults, for a person at a terminal.
    bool human_terminal = false;
};

class ChildProcess {
  public:
    // Returns nullptr with `error` set when the process could not be started (including exec failure).
    static std::unique_ptr<ChildProcess> spawn(const SpawnSpec &spec, std::string *error);
    ~ChildProcess();  // kills the session and reaps the child
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    pid_t pid() const { return pid_; }
    int output_fd() const { return out_fd_; }  // non-blocking; PTY master or pipe read end
    int pidfd() const { return pidfd_; }       // readable once the child exited (-1 if unsupported)

    // Writes `data` to the terminal (PTY only), waiting for room at most until `deadline`.
    bool write_all(std::string_view data, std::chrono::steady_clock::time_point deadline);

    // SIGKILL to the child's process group and to every process left in its session (background
    // jobs run in process groups of their own).
    void kill_session();

    // Reaps the child if it exited; returns true with a shell-style status (code, or 128+signal).
    bool try_reap(int *exit_code);

  private:
    ChildProcess() = default;
    // Takes a started child: its pid and our end of its terminal or pipe.
    static std::unique_ptr<ChildProcess> adopt(pid_t pid, int out_fd);
    pid_t pid_ = -1;
    int out_fd_ = -1;
    int pidfd_ = -1;
    bool reaped_ = false;
    int exit_code_ = -1;
};

}  // namespace actionhost::common
