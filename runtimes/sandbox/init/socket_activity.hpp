// Whether anyone talks to the sandbox: the connections open now through its unix sockets (the host's
// API socket, pid 1's ports socket), as the kernel lists them in /proc/net/unix. Every client request
// and every published port's connection passes through one of them, so this sees activity from
// outside without asking anything inside (which a paused sandbox could not answer) and without a
// word from the agent (which could lie).
//
// A connection accepted from a listening socket bound to a path carries that path too; one still in
// the listener's backlog (not accepted yet: pid 1 frozen) is listed as well. The listeners themselves
// (flag __SO_ACCEPTCON) are not counted.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sandbox {

// Connections through the listening sockets bound at `paths`, read from `proc_net_unix` (a test gives
// its own file). 0 when it cannot be read.
size_t open_connections(const std::vector<std::string> &paths, const std::string &proc_net_unix = "/proc/net/unix");

}  // namespace sandbox
