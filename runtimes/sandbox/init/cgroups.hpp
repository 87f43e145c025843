// Resource limits with cgroups: v2 where the unified hierarchy has the controllers, else v1 (this
// project's CI machine has only v1 controllers: memory, pids, cpu). Also the freezer for pause/resume.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace sandbox {

struct Limits {
    long memory_mb = 0;
    long pids = 0;
    double cpus = 0;
};

class Cgroup {
  public:
    // Creates the group `name` (under actionhost/) in every hierarchy that has a controller we use and
    // writes the limits. Failures are collected in warnings() (an unprivileged caller gets none).
    Cgroup(const std::string &name, const Limits &limits);
    // Moves `pid` into every created group.
    void join(pid_t pid);
    // Removes the groups (they must be empty: waits up to `timeout_s` for the last tasks to go).
    void remove(double timeout_s);
    const std::vector<std::string> &warnings() const { return warnings_; }
    const std::vector<std::string> &paths() const { return paths_; }
    // Each created group's directory with the name it has under /sys/fs/cgroup inside the sandbox: the
    // controller for v1 ("memory", "pids", ...), "" for the v2 group (see sys_view.hpp).
    const std::vector<std::pair<std::string, std::string>> &views() const { return views_; }

  private:
    std::vector<std::string> paths_;
    std::vector<std::pair<std::string, std::string>> views_;
    std::vector<std::string> warnings_;
};

// The directories `name`'s cgroups live in (for tests and the backend's pause/resume).
std::string cgroup_v1_path(const std::string &controller, const std::string &name);
bool cgroup_v2_usable();

}  // namespace sandbox
