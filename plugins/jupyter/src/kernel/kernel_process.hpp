// One kernel OS process: started in a session of its own (so an interrupt or a kill reaches the kernel and
// the shell commands it started), as the configured user, in the working directory, with the host's
// environment. Its stdout/stderr go to a pipe of which the last few KB are kept for error messages.
#pragma once

#include <actionhost/common/result.hpp>
#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace actionhost::common {
class ChildProcess;  // actionhost/common/process/child_process.hpp
}

namespace actionhost::jupyter {

struct SpawnOptions {
    std::vector<std::string> argv;
    std::string working_dir;
    // Run as this user when the host is root and the name differs from the host's user; "" = as the host.
    std::string username;
    std::map<std::string, std::string> extra_env;  // added to (or replacing in) the host's environment
};

class KernelProcess {
  public:
    // Starts the process, or says why not. `note` receives a non-fatal remark (e.g. the user cannot be
    // switched because the host is not root).
    static common::Result<std::unique_ptr<KernelProcess>> spawn(const SpawnOptions &options, std::string &note);
    ~KernelProcess();  // terminate(): no kernel outlives its object
    KernelProcess(const KernelProcess &) = delete;
    KernelProcess &operator=(const KernelProcess &) = delete;

    pid_t pid() const;
    // False once the process has exited (reaped here or by someone else). Cheap: one waitpid(WNOHANG).
    bool alive();
    // "exited with status 1", "was killed by signal 9 (Killed)", ...; "" while alive.
    std::string exit_reason() const;
    // SIGINT to the kernel's process group: ipykernel's interrupt_mode "signal".
    void interrupt();
    // SIGTERM to the group, then SIGKILL after `grace_s`; reaps the process.
    void terminate(double grace_s = 2.0);
    // The last bytes the process wrote to stdout/stderr.
    std::string output_tail() const;

  private:
    KernelProcess() = default;
    struct OutputReader;

    std::unique_ptr<common::ChildProcess> child_;  // stdout and stderr on one pipe, read by reader_
    std::string exit_reason_;  // "" while alive
    std::unique_ptr<OutputReader> output_;  // an event loop for the pipe (Boost.Asio); the destructor stops it
    std::thread reader_;                    // runs it
    mutable std::mutex tail_mu_;
    std::string tail_;
};

}  // namespace actionhost::jupyter
