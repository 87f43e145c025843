// A request's connection handed over after a 101 answer (Response::upgrade): the socket, on the
// handler's event loop, and what the peer sent after the request's header (already the upgraded
// protocol's bytes, to be relayed first).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <string>

namespace actionhost::common::http {

struct UpgradedConnection {
    explicit UpgradedConnection(boost::asio::io_context &io) : socket(io) {}
    boost::asio::ip::tcp::socket socket;
    std::string early_bytes;
};

}  // namespace actionhost::common::http
