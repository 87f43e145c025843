// A local host's processes found through /proc: the host and its descendants by parent pid — the
// host's process group does not hold them all, as the bash plugin's shells, the kernels and the
// browsers each run in a session of their own (common::SpawnSpec::new_session). What pauses the tree
// where the cgroup freezer cannot (host_freezer.hpp says when), and what ends its stragglers.
//
// Limits, as for any walk by parent pid: a process that left the tree (a double fork, a daemon
// reparented to init) is not found, and every process is named by its identity (pid and start time),
// never by a pid alone, so that a recycled pid is never signalled.
#pragma once

#include <sys/types.h>

#include <actionhost/runtime_support/process.hpp>

#include <vector>

namespace actionhost::local_runtime {

using actionhost::runtime_support::ProcessIdentity;

// `root` and its descendants now, root first; empty when `root` does not run. `proc` is the proc
// file system to read (a test may give another).
std::vector<ProcessIdentity> process_tree(pid_t root, const std::string &proc = "/proc");

// The tree stopped with SIGSTOP, and continued again with SIGCONT.
class StoppedTree {
  public:
    // Stops `root` and every descendant, looking again until a look finds nothing new: a process
    // forked while its parent was being stopped is found by the next look (a stopped process forks no
    // more). False when `root` does not run.
    bool stop(pid_t root);
    // SIGCONT to every process stop() stopped that still runs; forgets them.
    void resume();
    bool empty() const { return stopped_.empty(); }

  private:
    std::vector<ProcessIdentity> stopped_;
};

// SIGKILL to every process of `processes` that still runs (by its identity).
void kill_processes(const std::vector<ProcessIdentity> &processes);

}  // namespace actionhost::local_runtime
