// pid 1's event loop: reaps every child (orphans of the sandbox land on pid 1) and connects the outside
// to TCP ports of the sandbox's own network namespace, through unix sockets that live in the caller's
// filesystem (created by ah-sandbox-init before the namespaces, so nothing inside can reach them):
//   - the host's socket (a sandbox without the machine's network): each connection relayed to the
//     host's port on the sandbox's loopback;
//   - the ports socket (published ports, port_publisher.hpp): each connection starts with the port it
//     is for, in decimal and a newline ("8000\n"), and is relayed to that port on 127.0.0.1, or ::1 when
//     nothing listens there. Only ah-sandbox-init outside connects to it.
//
// Single-threaded (one Boost.Asio io_context run by pid 1, the relays of common/net/byte_relay.hpp): a
// fork bomb that exhausts the pids limit cannot stop it, since it never needs a new task.
#pragma once

#include <sys/types.h>

namespace sandbox {

// Runs until `main_child` exits; returns its wait status. `listen_fd` (relayed to `port`) and
// `ports_fd` may be < 0: not relayed. SIGCHLD must be blocked in the caller (the loop reads it through
// a signalfd).
int run_event_loop(pid_t main_child, int listen_fd, int port, int ports_fd);

}  // namespace sandbox
