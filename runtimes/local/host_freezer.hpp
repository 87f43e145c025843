// How a local host is paused when its idle timeout says so (docs/runtimes.md, "Lifetimes").
//
// The host's process group is not the host's tree: the bash plugin's shells, the Jupyter kernels, the
// browser and VS Code each start in a session of their own (common::SpawnSpec::new_session), so a
// SIGSTOP to the group — what Runtime::pause does for `local` — would leave the agent's commands
// running. So:
//   - a root client on a machine with the cgroup v1 freezer: the host's tree is moved into a freezer
//     group of its own, actionhost/local-<run id> (this file), and frozen there. Everything the host
//     starts later is born inside it, a daemon that double-forked away from the tree included, and
//     freezing is one write the processes cannot notice or refuse;
//   - anyone else (an unprivileged client cannot make groups; a cgroup v2 machine would need a
//     delegated subtree): every process of the tree, found through /proc, is stopped with SIGSTOP and
//     continued with SIGCONT (process_tree.hpp). A process that left the tree is not paused then, and a
//     process of the agent's may see its children stop (SIGCHLD) — the cost of no privilege.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "process_tree.hpp"

namespace actionhost::local_runtime {

class HostFreezer {
  public:
    // Makes /sys/fs/cgroup/freezer/actionhost/<name> and moves `host` and its descendants into it.
    // nullptr when it cannot (not root, no v1 freezer hierarchy, the host gone).
    static std::unique_ptr<HostFreezer> make(const std::string &name, pid_t host);
    ~HostFreezer();
    HostFreezer(const HostFreezer &) = delete;
    HostFreezer &operator=(const HostFreezer &) = delete;

    bool freeze() const;
    void thaw() const;
    bool frozen() const;
    // SIGKILL to every process left in the group (the host's stragglers, once it is stopped), until it
    // is empty or `timeout_s` passed.
    void kill_all(double timeout_s) const;
    // Thaws the group, moves what is in it back to the group the host came from and removes it. Also
    // done by the destructor.
    void release();
    const std::string &dir() const { return dir_; }

  private:
    HostFreezer(std::string dir, std::string home) : dir_(std::move(dir)), home_(std::move(home)) {}
    std::string dir_;   // the group
    std::string home_;  // the freezer group the host was in
};

// The freezer group of the host whose run directory is <TMPDIR>/ah-local-<id>.
std::string freezer_group_name(const std::string &run_dir);

// The local hosts' freezer groups whose host is gone (a keeper killed before it could release its
// group): thawed — never leave a process frozen with nobody to thaw it — and removed once empty.
// Root only.
void sweep_freezer_groups();

}  // namespace actionhost::local_runtime
