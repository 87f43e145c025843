// What a sandbox that ended by itself (its lifetime, idle_action = "stop": actionhost/lifetime/lifetime_keeper.hpp)
// removes after it, since no client may be running to do it: what `ahctl stop` removes through the
// backend (the run directory, the temporary workspace inside it) and the records that named the
// session (the backend's and the client library's). The cgroups and sockets main.cpp removes for
// every ending.
#pragma once

#include "options.hpp"

namespace sandbox {

// After pid 1 has ended. Best effort: what cannot be removed is reported on stderr, and the next
// sweep of the sandbox backend (sandbox_leftovers.hpp) finds it dead.
void remove_after_self_end(const Options &o);

}  // namespace sandbox
