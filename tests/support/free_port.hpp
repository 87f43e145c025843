// A TCP port for a server a test is about to start (a sandbox, a fake API, code-server).
#pragma once

namespace actionhost::testing {

// A port nothing listens on right now, on any address. Picked at random in 20000-29999: outside the
// kernel's ephemeral range (32768+) and Docker's 30000-39999, so that no bind(0) or outgoing connection
// of this or another process takes it between the choice and the server's own bind. Throws
// std::runtime_error when 200 picks found none free.
int free_port();

}  // namespace actionhost::testing
