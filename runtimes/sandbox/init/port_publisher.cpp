#include "port_publisher.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include <actionhost/common/net/accept_later.hpp>
#include <actionhost/common/net/byte_relay.hpp>

#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using asio::ip::tcp;
using Local = asio::local::stream_protocol;

namespace {

// One relayed connection: the machine's client (TCP) and pid 1's ports socket (unix).
struct Connection {
    explicit Connection(asio::io_context &io) : client(io), inside(io) {}
    tcp::socket client;
    Local::socket inside;
};

std::string endpoint_text(const tcp::endpoint &e) {
    const std::string host = e.address().to_string();
    return (e.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(e.port());
}

}  // namespace

struct PortPublisher::Listener {
    Listener(asio::io_context &io, int p) : port(p), acceptor(io) {}
    int port;
    tcp::acceptor acceptor;
    std::string address;
    std::vector<std::weak_ptr<Connection>> connections;  // pruned at each accept
    bool closed = false;
};

PortPublisher::PortPublisher(asio::io_context &io, std::string ports_socket) : io_(io), ports_socket_(std::move(ports_socket)) {}

PortPublisher::~PortPublisher() {
    for (auto &[port, l] : listeners_) {
        l->closed = true;
        boost::system::error_code ignored;
        l->acceptor.close(ignored);
    }
}

Publication PortPublisher::publish(int port, int machine_port, const std::string &address) {
    if (port < 1 || port > 65535) throw std::invalid_argument("the sandbox's port must be 1..65535, not " + std::to_string(port));
    if (machine_port < 0 || machine_port > 65535)
        throw std::invalid_argument("the machine's port must be 1..65535 (or 0: any free one), not " + std::to_string(machine_port));
    if (listeners_.count(port))
        throw std::invalid_argument("port " + std::to_string(port) + " is already published at " + listeners_[port]->address +
                                    " (unpublish it first)");
    if (listeners_.size() >= kMaxPublications)
        throw std::invalid_argument("at most " + std::to_string(kMaxPublications) + " ports of one sandbox can be published");
    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(address.empty() ? "127.0.0.1" : address, ec);
    if (ec) throw std::invalid_argument("not an IP address to listen on: '" + address + "'");
    auto l = std::make_shared<Listener>(io_, port);
    const tcp::endpoint where(ip, static_cast<unsigned short>(machine_port));
    l->acceptor.open(where.protocol(), ec);
    if (!ec) l->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec && ip.is_v6()) l->acceptor.set_option(asio::ip::v6_only(true), ec);
    if (!ec) l->acceptor.bind(where, ec);
    if (!ec) l->acceptor.listen(128, ec);
    if (ec) throw std::runtime_error("cannot listen on " + endpoint_text(where) + ": " + ec.message());
    l->address = endpoint_text(l->acceptor.local_endpoint());
    listeners_[port] = l;
    accept_next(l);
    return {port, l->address};
}

void PortPublisher::unpublish(int port) {
    auto it = listeners_.find(port);
    if (it == listeners_.end()) throw std::invalid_argument("port " + std::to_string(port) + " is not published");
    auto l = it->second;
    listeners_.erase(it);
    l->closed = true;
    boost::system::error_code ignored;
    l->acceptor.close(ignored);
    for (auto &weak : l->connections)
        if (auto c = weak.lock()) {
            c->client.close(ignored);
            c->inside.close(ignored);
        }
}

std::vector<Publication> PortPublisher::list() const {
    std::vector<Publication> out;
    for (const auto &[port, l] : listeners_) out.push_back({port, l->address});
    return out;
}

size_t PortPublisher::live_connections() {
    size_t live = 0;
    for (auto &[port, l] : listeners_) {
        std::erase_if(l->connections, [](const std::weak_ptr<Connection> &w) { return w.expired(); });
        live += l->connections.size();
    }
    return live;
}

void PortPublisher::accept_next(const std::shared_ptr<Listener> &l) {
    auto c = std::make_shared<Connection>(io_);
    l->acceptor.async_accept(c->client, [this, l, c](const boost::system::error_code &ec) {
        if (l->closed) return;
        if (ec)
            return actionhost::common::net::accept_later(io_, [this, l] {
                if (!l->closed) accept_next(l);
            });
        boost::system::error_code e;
        if (live_connections() >= kMaxConnections) {
            c->client.close(e);
            return accept_next(l);
        }
        c->client.set_option(tcp::no_delay(true), e);
        // Without waiting: a pid 1 that does not accept (a paused sandbox) fails this one connection.
        c->inside.open(Local(), e);
        if (!e) c->inside.non_blocking(true, e);
        if (!e) c->inside.connect(Local::endpoint(ports_socket_), e);
        if (!e) {
            l->connections.push_back(c);
            actionhost::common::net::start_byte_relay(c->client, c->inside, std::to_string(l->port) + "\n", {}, [c] {});
        }
        accept_next(l);
    });
}

}  // namespace sandbox
