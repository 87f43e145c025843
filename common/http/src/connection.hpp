// One client connection of the server (server.cpp): the socket, the bytes read ahead of the parser, and
// the parser of the request under way. Between requests the event loop alone touches it; while a handler's
// thread owns it (`handling`: from the hand-over until that thread posts it back, across the requests it
// serves back to back), that thread alone does, through the descriptor (server.cpp: serve,
// socket_exchange.cpp).
//
// While its thread waits for the client's next request, or carries a WebSocket or an upgraded
// connection, the loop's epoll stops watching the descriptor (`stop_watching`): a registration stays
// for the socket's life, edge-triggered, so every request of a client sending back to back (or every
// frame) would otherwise also wake the loop's thread for nothing, on the CPU the handler's thread
// needs next. The loop registers it again when the connection comes back (`watch_again`).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

namespace actionhost::common::http::detail {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::buffer_body>;

struct Connection {
    Connection(boost::asio::ip::tcp::socket s, boost::asio::ip::tcp family)
        : socket(std::move(s)), timer(socket.get_executor()), fd(socket.native_handle()), family(family) {}
    ~Connection() {
        if (!watched) ::close(fd);  // `socket` does not hold it
    }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    // On the thread that owns the connection, with no operation of the loop pending on it: `socket` lets
    // go of the descriptor, and the loop's epoll stops watching it (one epoll_ctl).
    void stop_watching() {
        if (!watched) return;
        boost::system::error_code ec;
        socket.release(ec);
        if (!ec) watched = false;
    }
    // On the loop's thread: `socket` holds the descriptor again, watched by the loop's epoll. False when
    // it cannot be registered (the descriptor is closed then: the connection is over).
    bool watch_again() {
        if (watched) return true;
        boost::system::error_code ec;
        socket.assign(family, fd, ec);
        if (ec) ::close(fd);
        watched = true;  // either way, no longer this object's to close by hand
        return !ec;
    }

    boost::asio::ip::tcp::socket socket;
    boost::asio::steady_timer timer;  // wakes for `deadline` (server.cpp: arm_timer)
    const int fd;  // the socket's descriptor, held by `socket` or not (handlers' threads use this)
    const boost::asio::ip::tcp family;  // its address family, to give it back to `socket`
    bool watched = true;  // `socket` holds `fd` (see stop_watching)
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();  // max: none
    bool timer_waiting = false;  // a wait on `timer` is pending
    boost::beast::flat_buffer buffer;  // read but not yet parsed (the next request's start, when pipelined)
    std::optional<RequestParser> parser;
    std::string remote;  // the peer's address text
    bool closed = false;
    bool handling = false;  // a handler's thread owns it
    bool served = false;    // it has carried a request (a kept-alive connection, not a fresh one)
    size_t header_bytes = 0;  // of the request under way, taken by the parser so far
    size_t header_lines = 0;  // lines of it arrived so far: the request line, the fields, the empty line
    uint32_t header_tail = 0;  // its last four bytes arrived
    bool header_ended = false;  // its empty line has arrived
    std::list<std::shared_ptr<Connection>>::iterator waiting_at;  // in the server's LRU list when !handling
};

}  // namespace actionhost::common::http::detail
