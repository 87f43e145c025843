// One VS Code server process tree: spawned in a session (and so a process group) of its own, as the
// chosen user, in the workspace; stopped with every descendant.
#pragma once

#include <actionhost/common/result.hpp>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "run_as.hpp"

namespace actionhost::common {
class ChildProcess;  // actionhost/common/process/child_process.hpp
}

namespace actionhost::vscode {

struct SpawnSpec {
    std::vector<std::string> argv;  // argv[0] is the executable's path
    std::vector<std::string> env;   // complete environment, "K=V"
    std::string cwd;
    RunAs user;
    // Where stdout and stderr go: a descriptor of the caller's (kept open by it until spawn returns),
    // opened before the directory it is in changed hands, so never reopened by a name the server's user
    // could have pointed elsewhere. -1: /dev/null.
    int log_fd = -1;
};

class ServerProcess {
  public:
    // Starts the server (common::ChildProcess), or says why it could not.
    static common::Result<std::unique_ptr<ServerProcess>> spawn(const SpawnSpec &spec);
    ~ServerProcess();  // stops the tree
    ServerProcess(const ServerProcess &) = delete;
    ServerProcess &operator=(const ServerProcess &) = delete;

    pid_t pid() const;
    // False once the server's main process has exited (reaped here); one whose main thread is already a
    // zombie is waited for (bounded) while the kernel ends its other threads.
    bool alive();
    // SIGTERM to the process group and every descendant, SIGKILL to what is left after `grace`.
    void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

  private:
    explicit ServerProcess(std::unique_ptr<common::ChildProcess> child);
    std::unique_ptr<common::ChildProcess> child_;
};

// Descendants of `root` (not `root` itself), read from /proc; exposed for tests and for stop().
std::vector<pid_t> descendants_of(pid_t root);

}  // namespace actionhost::vscode
