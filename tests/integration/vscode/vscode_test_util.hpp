// Helpers shared by the vscode plugin tests.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "support/free_port.hpp"

namespace actionhost::testing::vscode {

using actionhost::testing::free_port;

// A listening socket on 0.0.0.0:port held for the object's life (makes the port busy).
class PortHolder {
  public:
    PortHolder();
    ~PortHolder();
    int port() const { return port_; }

  private:
    int fd_ = -1;
    int port_ = 0;
};

// Installed code-server the plugin would find, or nullopt.
std::optional<std::string> installed_code_server();
// Descendants of `root` whose command line contains `needle`.
std::vector<pid_t> descendants_matching(pid_t root, const std::string &needle);
std::vector<pid_t> descendants(pid_t root);
bool running(pid_t pid);
// SIGKILL to each of `pids`, then waits (at most 5 s) until none of them runs.
void kill_and_wait(const std::vector<pid_t> &pids);
std::string cmdline(pid_t pid);

// Runs argv with a time limit; returns {exit status (or -1 on timeout), stdout}.
struct RunResult {
    int status = -1;
    std::string out;
};
RunResult run_command(const std::vector<std::string> &argv, double timeout_s);

bool looks_like_uuid4(const std::string &s);

}  // namespace actionhost::testing::vscode
