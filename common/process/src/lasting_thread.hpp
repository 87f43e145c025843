// One thread that lives as long as the library is loaded, for work whose effect is tied to the calling
// thread: the kernel sends a child's PR_SET_PDEATHSIG when the *thread* that forked it ends, so a child
// spawned from a short-lived thread (a worker of an agent server, a client thread of a bench) would die
// the moment that thread returned.
#pragma once

#include <functional>

namespace actionhost::common {

// Runs `work` on the lasting thread and returns when it is done (rethrowing what it threw). Any thread;
// calls are served one at a time, in order. Not from `work` itself.
void run_on_lasting_thread(const std::function<void()> &work);

// Starts the lasting thread now if it is not running yet (ChildProcess::start_lasting_spawner says
// who needs this and why).
void start_lasting_thread();

}  // namespace actionhost::common
