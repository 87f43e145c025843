// Whether a process still runs, as /proc tells it: a zombie (ended, waiting for its parent to reap it)
// does not. For processes that are not our children, which waitpid cannot ask about.
#pragma once

#include <sys/types.h>

namespace actionhost::common {

// True when `pid` exists and is not a zombie.
bool process_is_live(pid_t pid);

}  // namespace actionhost::common
