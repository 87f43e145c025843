// Stopping a Poco (1.11) HTTP server promptly: two waits of Poco's to avoid.
//
// - Its TCPServer looks at the stop flag only between 250 ms polls of the listening socket, so a plain
//   stop costs up to 250 ms per listener: every host stop, and with it every runtime teardown, paid that
//   twice (API server and file viewer). A connection to the listening socket ends the poll.
// - Its dispatcher wakes only the threads waiting at the moment of the stop: a thread that finishes a
//   connection just then waits for the next one for its whole idle time (10 s by default) before it sees
//   the stop, and ThreadPool::joinAll() waits for it. Connections ending at the stop (the knocks above
//   among them) make that likely; a short idle time bounds it.
#pragma once

namespace Poco::Net {
class HTTPServer;
class HTTPServerParams;
}  // namespace Poco::Net

namespace actionhost::common {

// Sets what a server needs to stop promptly (the dispatcher's idle time); call before creating it.
void prepare_for_prompt_stop(Poco::Net::HTTPServerParams &params);

enum class StopMode {
    AcceptingOnly,       // TCPServer::stop: requests being served run on
    AbortingConnections  // HTTPServer::stopAll(true): their connections are shut down too
};
// Never HTTPServer::stopAll(false): it waits for each request being served to end, long actions too.
void stop_promptly(Poco::Net::HTTPServer &server, StopMode mode);

}  // namespace actionhost::common
