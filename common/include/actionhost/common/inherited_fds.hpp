// What a child process inherits from the host: its standard streams and nothing else.
//
// Poco (and most libraries) open sockets and files without O_CLOEXEC, so a child started with a plain
// fork+exec keeps the host's listening sockets, its clients' connections and its files open for as long
// as it lives: a restarted host cannot bind its port while the old host's code-server still holds it, and
// a client whose connection the host closed never sees the end of it.
#pragma once

namespace actionhost::common {

// Marks every descriptor from `first` up as close-on-exec. Async-signal-safe: for the child between fork
// and exec. Marking (rather than closing) keeps a close-on-exec status pipe usable until the exec.
void close_on_exec_from(int first = 3);

}  // namespace actionhost::common
