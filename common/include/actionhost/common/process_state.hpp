// A process as /proc/<pid>/stat tells it, for processes that are not our children (which waitpid
// cannot ask about) and for a child whose main thread has ended before its other threads.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

namespace actionhost::common {

struct ProcessStat {
    char state = '?';  // R, S, D, Z, ... ('Z': ended, waiting for its parent to reap it)
    pid_t ppid = 0;
    // When it started, in clock ticks since boot: with the pid, names one process for good (a pid is
    // reused once its process is reaped; the pair never is within a boot).
    unsigned long long start_ticks = 0;
};

// Nullopt when the process does not exist (or its stat cannot be read).
std::optional<ProcessStat> read_process_stat(pid_t pid);

// True when `pid` exists and is not a zombie.
bool process_is_live(pid_t pid);

// A child whose main thread is a zombie while the kernel still ends its other threads (node and Python
// are multithreaded: after a SIGKILL this lasts a few ms) cannot be reaped yet, though it is as good as
// dead. Waits up to `bound` for waitpid to reap it. A process whose main thread alone exited keeps
// running, hence the bound.
struct ReapWait {
    enum Outcome {
        Reaped,      // `status` holds its wait status
        NotOurChild, // waitpid says ECHILD: someone else reaped it (SIGCHLD ignored, say)
        StillThere,  // not reapable within the bound
    } outcome = StillThere;
    int status = 0;
};
ReapWait wait_until_reapable(pid_t child, std::chrono::milliseconds bound);

}  // namespace actionhost::common
