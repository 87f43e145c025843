// A process as /proc/<pid>/stat tells it, for processes that are not our children (which waitpid
// cannot ask about) and for a child whose main thread has ended before its other threads.
#pragma once

#include <sys/types.h>

#include <optional>

namespace actionhost::common {

struct ProcessStat {
    char state = '?';  // R, S, D, Z, ... ('Z': ended, waiting for its parent to reap it)
    pid_t ppid = 0;
};

// Nullopt when the process does not exist (or its stat cannot be read).
std::optional<ProcessStat> read_process_stat(pid_t pid);

// True when `pid` exists and is not a zombie.
bool process_is_live(pid_t pid);

}  // namespace actionhost::common
