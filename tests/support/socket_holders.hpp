// Listening sockets and which processes hold them open: a child that inherited the host's listener
// keeps its port bound after the host is gone (tests of what children inherit, of what a runtime opens);
// a server that must be reached only through a guard may listen on nothing another user can open.
#pragma once

#include <sys/types.h>

#include <map>
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

// The sockets `pid` has descriptors on, as /proc/<pid>/fd links name them ("socket:[<inode>]"). Empty
// when the process is gone or its descriptors cannot be read.
std::set<std::string> sockets_of(pid_t pid);

// Every TCP port listened on through a socket one of `pids` holds, with the holders among `pids`.
std::map<int, std::set<pid_t>> tcp_listeners_held_by(const std::vector<pid_t> &pids);

struct UnixListener {
    std::string path;  // the file's path; "@name" for an abstract socket, "" for an unnamed one
    std::string inode;
};

// Every listening unix stream socket one of `pids` holds (from /proc/net/unix).
std::vector<UnixListener> unix_listeners_held_by(const std::vector<pid_t> &pids);

}  // namespace actionhost::testing
