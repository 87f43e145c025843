// The HTTP/1.1 server of the host and its file viewer: Boost.Beast's parser on a Boost.Asio event loop
// for connections between requests, a thread per request being handled.
//
// Why this shape: handlers block (an action runs for minutes), so a request being handled has a thread;
// but a connection that is only open — kept alive between requests, or opened and never used — costs
// no thread, only a socket and a small buffer watched by one event loop. A thread per connection (what
// Poco's server does) let ~530 idle connections, which anyone who can reach the port may open, leave no
// thread for /alive.
//
// What it promises, whoever the peer is:
// - Framing is unambiguous: two different Content-Length values, Content-Length with chunked, a
//   Transfer-Encoding other than "chunked", a negative or malformed length → 400 and the connection is
//   closed (so a proxy in front and this server can never disagree on where a request ends).
// - Idle connections are bounded in time (`first_request_timeout`/`idle_timeout` before a request,
//   `header_timeout` for a header once started) and in number (`max_connections`; past it, the connection idle the longest is
//   closed to make room; a request being handled is never cut).
// - Status lines carry the right reason phrase.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "actionhost/common/http/exchange.hpp"

namespace actionhost::common::http {

using Handler = std::function<void(Request &, Response &)>;

// An answer given without the handler (ServerSettings::quick_answer).
struct QuickAnswer {
    int status = 200;
    std::string content_type;
    std::string body;
};

struct ServerSettings {
    std::string name = "http";  // names its threads and its log lines
    // Open connections at most (those being handled included). 0: half of RLIMIT_NOFILE's soft limit,
    // at most 8192, so the process keeps descriptors for its own files and children.
    size_t max_connections = 0;
    // A new connection with no request begun is closed after `first_request_timeout`; one kept alive after
    // a response, after `idle_timeout` (longer than the 8 s Poco's clients and others assume before they
    // reconnect on their own, so none of them sends into a connection just closed).
    std::chrono::milliseconds first_request_timeout{5000};
    std::chrono::milliseconds idle_timeout{15000};
    std::chrono::milliseconds header_timeout{30000};  // a header begun must be complete by then
    std::chrono::milliseconds io_timeout{300000};     // a body read or response write making no progress
    size_t max_header_bytes = 64 * 1024;              // a larger header → 431; a chunked body's trailers,
                                                      // or one chunk-size line, longer → the body fails
    size_t max_header_fields = 256;                   // more fields in a header → 431
    size_t max_handlers = 512;                        // requests handled at once; more wait their turn
    std::function<void(const std::string &)> log;     // problems worth a line (optional)
    // Requests the event loop answers at once, without a handler's thread (a health check): (method,
    // target) → the answer, or nullopt for a request the handler takes. Asked only for requests with no
    // body and no upgrade. Optional; keep it to fixed answers that take microseconds. Called on the event
    // loop or a handler's thread (for the request after one it answered): it must be thread-safe.
    std::function<std::optional<QuickAnswer>(std::string_view method, std::string_view target)> quick_answer;
};

class Server {
  public:
    // Binds `host`:`port` (0: any free port) and listens; nothing is served before start(). Throws
    // std::runtime_error naming the address when it cannot.
    Server(const std::string &host, uint16_t port, Handler handler, ServerSettings settings = {});
    ~Server();  // stop()
    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;

    uint16_t port() const;
    // Starts the event loop thread. Call once.
    void start();
    // Closes the listener and every connection not being handled; requests being handled run on.
    // Returns at once. Thread: any.
    void stop_accepting();
    // stop_accepting(), then the connections still being handled are shut down (their handlers see
    // their writes fail) and every thread of the server is joined. Idempotent. Thread: any but a
    // handler's.
    void stop();

    // Counters for tests and logs.
    size_t open_connections() const;
    uint64_t shed_connections() const;  // idle connections closed to make room

  private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace actionhost::common::http
