// pid 1's event loop: reaps every child (orphans of the sandbox land on pid 1) and, for a sandbox with
// no network, connects the outside to the host: it accepts on a unix socket that lives in the caller's
// filesystem (created before the namespaces) and relays each connection to the host's TCP port on the
// sandbox's private loopback.
//
// Single-threaded (one Boost.Asio io_context run by pid 1, the relays of common/net/byte_relay.hpp): a
// fork bomb that exhausts the pids limit cannot stop it, since it never needs a new task.
#pragma once

#include <sys/types.h>

namespace sandbox {

// Runs until `main_child` exits; returns its wait status. `listen_fd` < 0: reaping only.
// SIGCHLD must be blocked in the caller (the loop reads it through a signalfd).
int run_event_loop(pid_t main_child, int listen_fd, int port);

}  // namespace sandbox
