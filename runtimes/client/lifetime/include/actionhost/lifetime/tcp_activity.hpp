// Whether anyone talks to a host reached over TCP (the `local` and `docker` runtimes): the connections
// open now to its port, as the kernel lists them in <proc>/net/tcp and tcp6 — the machine's for a local
// host, the container's network namespace (/proc/<container pid>/net) for docker. Every request comes
// that way, so this sees activity from outside without asking the host (which a paused one could not
// answer) and without a word from the agent (which could lie).
//
// Counted: sockets whose local port is the host's, ESTABLISHED or SYN_RECV. A connection still in the
// listener's accept queue (the host frozen, accepting nothing) is listed ESTABLISHED already, so a
// request to a paused host is seen. Not counted: the listener itself, connections that are closing or
// closed (TIME_WAIT, FIN_WAIT, CLOSE_WAIT), other ports, the client's own end of the connection (its
// local port is an ephemeral one) and, with `ignore_local_peers`, connections from the host's own
// machine to itself (a loopback peer, or a peer address equal to the local one): inside a container of
// its own, those are the agent's, which must not keep its sandbox awake.
#pragma once

#include <cstddef>
#include <string>

namespace actionhost::lifetime {

// Connections to `port` in one file in the format of /proc/net/tcp or tcp6 (the address width tells
// which). 0 when it cannot be read.
size_t tcp_connections_in(const std::string &proc_net_file, int port, bool ignore_local_peers);

// Both files of `proc_net_dir` ("/proc/net", "/proc/<pid>/net").
size_t open_tcp_connections(int port, bool ignore_local_peers, const std::string &proc_net_dir = "/proc/net");

}  // namespace actionhost::lifetime
