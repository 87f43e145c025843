// What ah-sandbox-init does outside the namespaces while its sandbox runs: it waits for pid 1, relays
// the sandbox's output (output_relay.hpp) and ends the sandbox when it is told to or when its owner is
// gone, then leaves nothing behind (main.cpp removes the cgroups and the socket after).
//
// Ending is immediate and needs nothing from inside: SIGKILL of pid 1, which makes the kernel kill every
// process of the pid namespace, after thawing the sandbox's cgroups (a frozen, paused sandbox would
// keep the SIGKILL pending). A stopped (SIGSTOP) or hung pid 1 dies the same way.
//
// When it ends the sandbox:
//   - SIGTERM, SIGINT or SIGHUP (blocked from the start, read through a signalfd);
//   - the lifetime keeper says so (actionhost/lifetime/lifetime_keeper.hpp: the lifetime is over, or idle "stop");
//   - the control socket's peer (the backend that started it) is gone before it said "detach": a
//     client killed mid-start or mid-command (kill -9, Ctrl-C) takes its sandbox with it. A kept-alive
//     sandbox is detached once it is recorded, and then lives on its own.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace sandbox {

// One byte on the control socket: the backend asks, ah-sandbox-init answers the same byte once done.
inline constexpr char kDetach = 'd';

struct Supervision {
    pid_t child = -1;         // pid 1 of the sandbox (our child)
    int child_pidfd = -1;     // wakes the wait at its exit (-1: looked at every 100 ms)
    int control_fd = -1;      // the backend's control socket, or -1
    int signal_fd = -1;       // signalfd of SIGTERM, SIGINT and SIGHUP, or -1
    std::function<void()> end_sandbox;  // SIGKILL pid 1, thaw the cgroups
    // More to serve on the supervisor's event loop while the sandbox runs (the control socket, the
    // lifetime keeper): made once the loop exists, ended before it is. `end` ends the sandbox as a
    // SIGTERM does (once, however often it is called).
    std::function<std::shared_ptr<void>(boost::asio::io_context &, std::function<void()> end)> start_services;
};

// Runs until the child exits; returns its wait status. `relay` receives the output meanwhile.
class OutputRelay;
int supervise(const Supervision &s, OutputRelay &relay);

}  // namespace sandbox
