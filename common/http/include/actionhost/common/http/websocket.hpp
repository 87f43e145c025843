// A request's connection upgraded to a WebSocket (RFC 6455): what Response::accept_websocket hands a
// handler. Boost.Beast's stream over the connection's socket, on an event loop of its own that the
// handler's thread runs (io.run()) for as long as the conversation lasts.
//
// Why an event loop per WebSocket rather than blocking calls: a terminal reads its peer and its PTY at
// once and must answer pings while it writes; Beast's synchronous calls cannot run concurrently on one
// stream, its asynchronous ones can, and one thread is enough for them. The server's own loop never sees
// the socket again: it took the connection out of its hands when the handler began, and closes it after
// the handler returns (so the WebSocket must not outlive the handler).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <chrono>
#include <cstddef>

namespace actionhost::common::http {

struct WebSocketLimits {
    size_t max_message_bytes = 64 * 1024;  // a larger message from the peer ends the conversation (1009)
    // No frame from the peer for this long: a ping; no answer to it within the same time: closed. Bounds
    // a peer that vanished without a FIN.
    std::chrono::seconds idle_timeout{60};
    std::chrono::seconds handshake_timeout{10};  // the upgrade answer written, a close handshake done
};

struct WebSocket {
    boost::asio::io_context io{1};
    boost::beast::websocket::stream<boost::asio::ip::tcp::socket> stream{io};
};

}  // namespace actionhost::common::http
