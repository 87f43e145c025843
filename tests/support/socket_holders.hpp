// Which processes hold a listening TCP socket open: a child that inherited the host's listener keeps its
// port bound after the host is gone (tests of what children inherit).
#pragma once

#include <sys/types.h>

#include <set>

namespace actionhost::testing {

// Every process with a descriptor on the socket listening on `port` (IPv4 or IPv6, any address).
// Empty when nothing listens there. Reads /proc/net/tcp{,6} and /proc/<pid>/fd.
std::set<pid_t> processes_holding_listener(int port);

}  // namespace actionhost::testing
