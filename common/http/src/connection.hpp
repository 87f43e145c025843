// One client connection of the server (server.cpp): the socket, the bytes read ahead of the parser, and
// the parser of the request under way. Between requests the event loop alone touches it; while a handler's
// thread owns it (`handling`: from the hand-over until that thread posts it back, across the requests it
// serves back to back), that thread alone does, through the descriptor (server.cpp: serve,
// socket_exchange.cpp).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

namespace actionhost::common::http::detail {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::buffer_body>;

struct Connection {
    explicit Connection(boost::asio::ip::tcp::socket s) : socket(std::move(s)), timer(socket.get_executor()) {}

    boost::asio::ip::tcp::socket socket;
    boost::asio::steady_timer timer;  // wakes for `deadline` (server.cpp: arm_timer)
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
