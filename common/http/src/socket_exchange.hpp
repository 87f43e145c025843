// A request whose header the event loop has parsed, and its response, over the connection's socket: what
// a handler gets from the server (exchange.hpp), run on the handler's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "actionhost/common/http/exchange.hpp"
#include "connection.hpp"

namespace actionhost::common::http::detail {

class SocketExchange {
  public:
    // `io_timeout`: a read or write making no progress for that long fails. `max_framing_bytes`: the
    // longest chunk-size line or trailer section of a chunked body (the header's limit).
    SocketExchange(Connection &connection, std::chrono::milliseconds io_timeout, size_t max_framing_bytes);
    ~SocketExchange();

    Request &request();
    Response &response();
    // After the handler returned: answers 500 if it sent nothing, ends a streamed body, reads and drops
    // what has already arrived of the rest of the request body (a bounded amount; it never waits for
    // more). Returns whether the connection can carry another request.
    bool finish();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace actionhost::common::http::detail
