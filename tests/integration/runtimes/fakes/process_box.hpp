// What a fake provider runs a sandbox's processes in: the machine itself, with a private directory and
// HOME per sandbox. Each command runs under `bash -c` in a process group of its own; stop ends them
// all, freeze/thaw suspend them (SIGSTOP/SIGCONT), as a paused container's processes are.
// Sandboxes share the machine's network: each must be told a port of its own (the tests pick free ones).
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "support/free_port.hpp"
#include "support/temp_dir.hpp"

namespace cloud_fakes {

struct CommandResult {
    int exit_code = -1;
    std::string output;
};

class ProcessBox {
  public:
    explicit ProcessBox(const std::string &name);
    ~ProcessBox();  // stop()

    // Starts `command` in the background; returns its pid (= its process group).
    pid_t start(const std::string &command, const std::map<std::string, std::string> &env);
    // Runs `command` to completion (bounded by timeout_s, then killed: exit code -1).
    CommandResult run(const std::string &command, const std::map<std::string, std::string> &env, double timeout_s = 60);

    void freeze();
    void thaw();
    void stop();                        // SIGCONT, SIGTERM, then SIGKILL after 5 s, every group started
    bool running(pid_t pid) const;      // still alive (not reaped)
    int running_count() const;
    std::string log(pid_t pid) const;   // output so far of a started command
    const std::string &home() const { return home_; }

  private:
    std::map<std::string, std::string> environment(const std::map<std::string, std::string> &extra) const;
    std::unique_ptr<actionhost::testing::TempDir> dir_;
    std::string home_;
    mutable std::mutex mutex_;
    std::vector<pid_t> pids_;
};

using actionhost::testing::free_port;

}  // namespace cloud_fakes
