// Stopping a Poco HTTP server without waiting out its acceptor's poll.
//
// Poco's TCPServer (1.11) looks at its stop flag only between 250 ms polls of the listening socket, so
// a plain stop costs up to 250 ms per listener: every host stop, and with it every runtime teardown,
// paid that twice (API server and file viewer). A connection to the listening socket ends the poll.
#pragma once

namespace Poco::Net {
class HTTPServer;
}

namespace actionhost::host {

enum class StopMode {
    AcceptingOnly,       // TCPServer::stop: requests being served run on
    AbortingConnections  // HTTPServer::stopAll(true): their connections are shut down too
};
// Never HTTPServer::stopAll(false): it waits for each request being served to end, long actions too.
void stop_promptly(Poco::Net::HTTPServer &server, StopMode mode);

}  // namespace actionhost::host
