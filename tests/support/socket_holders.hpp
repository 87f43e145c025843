// Listening TCP sockets and which processes hold them open: a child that inherited the host's listener
// keeps its port bound after the host is gone (tests of what children inherit, of what a runtime opens).
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace actionhost::testing {

struct ListeningSocket {
    int port = 0;
    std::string inode;  // as /proc/<pid>/fd links name it: "socket:[<inode>]"
};

// Every listening TCP socket of the machine (IPv4 and IPv6), from /proc/net/tcp{,6}.
std::vector<ListeningSocket> listening_sockets();

// Every process with a descriptor on the socket listening on `port` (IPv4 or IPv6, any address).
// Empty when nothing listens there. Reads /proc/<pid>/fd.
std::set<pid_t> processes_holding_listener(int port);

}  // namespace actionhost::testing
