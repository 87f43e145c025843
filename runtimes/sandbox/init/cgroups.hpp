// Resource limits with cgroups: v2 where the unified hierarchy has the controllers, else v1 (this
// project's CI machine has only v1 controllers: memory, pids, cpu). Also the freezer for pause/resume,
// and the ending of a sandbox's groups whoever ends it: ah-sandbox-init when it stops, the backend's
// sweep when an ah-sandbox-init was killed before it could (see reclaim in sandbox_runtime.cpp).
//
// Every sandbox's groups are actionhost/<name> in each hierarchy. A sweep removes empty groups whose
// sandbox is gone; a group is also empty between its creation and the moment its sandbox's first
// process joins it. CgroupCreationLock closes that window: creators hold it shared from mkdir to join,
// a sweep holds it exclusively.
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
    // cgroup v1 charges socket buffers to no group unless this is set (memory.kmem.tcp.limit_in_bytes):
    // 45 loopback TCP pairs in a 256 MiB sandbox took 528 MiB of the machine's TCP memory. v2 counts
    // them in memory.max already.
    long tcp_memory_mb = 0;
};

class CgroupCreationLock {
  public:
    enum Mode { Creating, Sweeping };
    // Creating blocks until granted; Sweeping gives up after a short while (held() says which): creators
    // hold it for a millisecond, a sweep can wait for the next one. No-op where no tree of ours exists.
    explicit CgroupCreationLock(Mode mode);
    ~CgroupCreationLock();
    bool held() const { return held_; }
    // The descriptor to close in a child that must not keep the lock (-1 when none).
    int fd() const { return fd_; }
    CgroupCreationLock(const CgroupCreationLock &) = delete;
    CgroupCreationLock &operator=(const CgroupCreationLock &) = delete;

  private:
    int fd_ = -1;
    bool held_ = false;
};

class Cgroup {
  public:
    // Creates the group `name` (under actionhost/) in every hierarchy that has a controller we use and
    // writes the limits. Failures are collected in warnings() (an unprivileged caller gets none).
    Cgroup(const std::string &name, const Limits &limits);
    // The fast way in, for a process that has not forked yet: the `tasks` file of each v1 group, opened
    // here for writing (the permission is the opener's), for that process to write "0" to (join_self).
    // A write to cgroup.procs takes the threadgroup lock's slow path and waits for an RCU grace period
    // (5-15 ms here); one thread moving itself skips that lock. The v2 group (cgroup.threads moves a
    // thread only inside one threaded domain), or one whose file cannot be opened, gets none:
    // join_others() moves the process there.
    std::vector<int> open_self_join_files();
    // Moves `pid` (with cgroup.procs) into the groups open_self_join_files() left out; call it after.
    void join_others(pid_t pid);
    // Lets a frozen (paused) group run again, so that a SIGKILL sent to its processes takes effect.
    void thaw() const;
    // Freezes the group (the lifetime keeper's idle pause): false when it has no freezer. Returns once
    // asked; v1 passes through FREEZING on its own. frozen(): FROZEN or FREEZING (v1), or "1" (v2).
    bool freeze() const;
    bool frozen() const;
    bool has_freezer() const;
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
    std::vector<std::string> joined_by_parent_;  // the groups open_self_join_files() gave no file for
};

// Moves the calling thread (single-threaded: the whole process) into the group whose `tasks` file `fd`
// is (Cgroup::open_self_join_files). False with errno on a failure.
bool join_self(int fd);

// The directories `name`'s cgroups live in (for tests and the backend's pause/resume).
std::string cgroup_v1_path(const std::string &controller, const std::string &name);
bool cgroup_v2_usable();

// --- for the backend: the groups of sandboxes whose ah-sandbox-init is gone -------------------------

// Names of the groups under actionhost/ in any hierarchy ("ah-…").
std::vector<std::string> sandbox_cgroup_names();
// Every existing directory of group `name`, in any hierarchy.
std::vector<std::string> sandbox_cgroup_dirs(const std::string &name);
// True when no process is in group `name` in any hierarchy.
bool sandbox_cgroup_empty(const std::string &name);
// Thaws group `name`, SIGKILLs every process in it, waits (up to `timeout_s`) until it is empty and
// removes it from every hierarchy. Only for a group whose sandbox has no ah-sandbox-init left: the
// processes in it are then the orphans of a sandbox nobody can stop otherwise. True when it is gone.
bool kill_and_remove_cgroup(const std::string &name, double timeout_s);

}  // namespace sandbox
