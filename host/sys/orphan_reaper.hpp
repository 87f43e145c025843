// When the host is PID 1 (the sandbox backend's pid namespace, a container without an init), every
// orphaned process of the sandbox — chromium's helpers, a `cmd &` whose shell exited — is re-parented
// to it, and the kernel keeps it a zombie until PID 1 waits for it. Nobody else will: this reaps them.
//
// It must not steal the exit status of a child a plugin started and waits for itself (a shell, the
// kernel, chromium). So it never calls waitpid(-1): it reaps only a zombie that has stayed unreaped for
// a grace period, which a plugin waiting for its own child never lets happen. A plugin that waits later
// still gets ECHILD and treats it as "already exited".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <sys/types.h>
#include <thread>

namespace actionhost::host {

class OrphanReaper {
  public:
    explicit OrphanReaper(std::chrono::milliseconds grace = std::chrono::milliseconds(3000),
                          std::chrono::milliseconds interval = std::chrono::milliseconds(1000));
    ~OrphanReaper();  // stops the thread

    // Starts reaping when this process is PID 1, or when `subreaper` asks for it: then it first becomes
    // the child subreaper of its descendants (PR_SET_CHILD_SUBREAPER), so their orphans come to it
    // rather than to the machine's init. Returns whether it started.
    bool start(bool subreaper);
    // One scan: reaps zombie children that were already zombies `grace` ago. Returns how many.
    int scan_once();
    long reaped() const { return reaped_.load(); }

  private:
    std::chrono::milliseconds grace_, interval_;
    std::map<pid_t, std::chrono::steady_clock::time_point> first_seen_zombie_;
    std::atomic<long> reaped_{0};
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace actionhost::host
