#include "control_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/net/accept_later.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using Local = asio::local::stream_protocol;
using nlohmann::json;

namespace {

constexpr size_t kMaxRequest = 4096;

struct Exchange {
    explicit Exchange(asio::io_context &io) : socket(io), deadline(io), request(kMaxRequest) {}
    Local::socket socket;
    asio::steady_timer deadline;
    asio::streambuf request;
    std::string reply;
};

// The caller of ah-sandbox-init (its uid) or the machine's root: nobody else, whatever the socket's mode.
bool trusted_peer(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
    return cred.uid == 0 || cred.uid == geteuid();
}

int port_field(const json &request, const char *name, int fallback) {
    if (!request.contains(name)) return fallback;
    const json &v = request[name];
    if (!v.is_number_integer()) throw std::invalid_argument(std::string(name) + " must be a whole number");
    const auto n = v.get<long long>();
    if (n < 0 || n > 65535) throw std::invalid_argument(std::string(name) + " must be 0..65535, not " + std::to_string(n));
    return static_cast<int>(n);
}

}  // namespace

struct ControlServer::Impl {
    Impl(asio::io_context &io, int listen_fd, ControlServer &server) : io(io), acceptor(io), server(server) {
        acceptor.assign(Local(), listen_fd);
    }

    void accept_next() {
        auto x = std::make_shared<Exchange>(io);
        acceptor.async_accept(x->socket, [this, x](const boost::system::error_code &ec) {
            if (ec == asio::error::operation_aborted) return;
            if (ec) return actionhost::common::net::accept_later(io, [this] { accept_next(); });
            if (trusted_peer(x->socket.native_handle())) serve(x);
            accept_next();
        });
    }

    void serve(const std::shared_ptr<Exchange> &x) {
        x->deadline.expires_after(std::chrono::seconds(5));
        x->deadline.async_wait([x](const boost::system::error_code &ec) {
            boost::system::error_code ignored;
            if (!ec) x->socket.close(ignored);
        });
        asio::async_read_until(x->socket, x->request, '\n', [this, x](const boost::system::error_code &ec, size_t n) {
            if (ec) {
                x->deadline.cancel();
                return;
            }
            const std::string line(asio::buffers_begin(x->request.data()), asio::buffers_begin(x->request.data()) + n);
            json reply;
            auto parsed = actionhost::common::parse_json(line);
            if (!parsed || !parsed.value().is_object()) reply = json{{"ok", false}, {"error", "the request is not a JSON object"}};
            else reply = server.answer(parsed.value());
            x->reply = actionhost::common::dump_json(reply) + "\n";
            asio::async_write(x->socket, asio::buffer(x->reply), [x](const boost::system::error_code &, size_t) {
                x->deadline.cancel();
                boost::system::error_code ignored;
                x->socket.close(ignored);
            });
        });
    }

    asio::io_context &io;
    Local::acceptor acceptor;
    ControlServer &server;
};

ControlServer::ControlServer(asio::io_context &io, int listen_fd, std::string ports_socket, Network network, LifetimeKeeper *lifetime)
    : impl_(std::make_unique<Impl>(io, listen_fd, *this)), ports_(io, std::move(ports_socket)), network_(std::move(network)),
      lifetime_(lifetime) {
    impl_->accept_next();
}

ControlServer::~ControlServer() = default;

json ControlServer::answer(const json &request) {
    try {
        const std::string op = request.contains("op") && request["op"].is_string() ? request["op"].get<std::string>() : "";
        if (op == "publish" && network_.mode == "host")
            throw std::invalid_argument("with network = \"host\" the sandbox's ports are the machine's own: reach them at 127.0.0.1 directly");
        if (op == "publish") {
            if (!request.contains("port")) throw std::invalid_argument("publish needs the sandbox's port");
            if (request.contains("address") && !request["address"].is_string()) throw std::invalid_argument("address must be a string");
            const Publication p = ports_.publish(port_field(request, "port", 0), port_field(request, "machine_port", 0),
                                                 request.value("address", std::string("127.0.0.1")));
            return {{"ok", true}, {"port", p.port}, {"address", p.address}};
        }
        if (op == "unpublish") {
            if (!request.contains("port")) throw std::invalid_argument("unpublish needs the sandbox's port");
            ports_.unpublish(port_field(request, "port", 0));
            return {{"ok", true}};
        }
        if (op == "ports") {
            json list = json::array();
            for (const auto &p : ports_.list()) list.push_back({{"port", p.port}, {"address", p.address}});
            return {{"ok", true}, {"ports", list}};
        }
        if (op == "net") return network_state(true);
        if (op == "net_change") return change_network(request);
        if (op == "lifetime") return lifetime_state();
        if (op == "extend") return extend(request);
        throw std::invalid_argument("unknown request '" + op + "' (publish, unpublish, ports, net, net_change, lifetime, extend)");
    } catch (const std::invalid_argument &e) {  // the request itself: a port already published, say
        return {{"ok", false}, {"error", e.what()}, {"invalid", true}};
    } catch (const std::exception &e) {  // the machine: its port taken, not ours to bind
        return {{"ok", false}, {"error", e.what()}};
    }
}

namespace {

std::vector<std::string> cidr_list(const json &request, const char *name) {
    std::vector<std::string> out;
    if (!request.contains(name)) return out;
    if (!request[name].is_array()) throw std::invalid_argument(std::string(name) + " must be a list of CIDRs and domain names");
    for (const auto &e : request[name]) {
        if (!e.is_string()) throw std::invalid_argument(std::string(name) + " must be a list of CIDRs and domain names (strings)");
        out.push_back(normalise_entry(e.get<std::string>()));  // std::invalid_argument with the reason
    }
    return out;
}

// Both sides are normalised (cidr_list, UserModeNetwork::policy): entries compare as text.
bool holds(const std::vector<std::string> &list, const std::string &cidr) { return std::find(list.begin(), list.end(), cidr) != list.end(); }

}  // namespace

json ControlServer::network_state(bool with_log) {
    json out{{"ok", true}, {"mode", network_.mode}};
    if (network_.user_net == nullptr) return out;
    const EgressPolicy &p = network_.user_net->policy();
    out["allow"] = p.allow;
    out["deny"] = p.deny;
    out["allow_only"] = p.allow_only;
    if (!with_log) return out;
    const RefusalLog log = network_.user_net->refusals();
    out["refused"] = log.refused;
    json entries = json::array();
    for (const auto &d : log.destinations)
        entries.push_back({{"address", d.address}, {"protocol", d.protocol}, {"port", d.port}, {"packets", d.packets}});
    out["log"] = entries;
    return out;
}

json ControlServer::change_network(const json &request) {
    if (network_.user_net == nullptr)
        throw std::invalid_argument("the sandbox's network is \"" + network_.mode + "\": an egress policy needs \"internet\"");
    const auto allow = cidr_list(request, "allow"), deny = cidr_list(request, "deny"), remove = cidr_list(request, "remove");
    if (allow.empty() && deny.empty() && remove.empty()) throw std::invalid_argument("net_change needs allow, deny or remove entries");
    EgressPolicy next = network_.user_net->policy();
    for (const auto &c : remove) {
        if (!holds(next.allow, c) && !holds(next.deny, c)) throw std::invalid_argument(c + " is in neither list");
        std::erase(next.allow, c);
        std::erase(next.deny, c);
    }
    for (const auto &c : allow) {
        std::erase(next.deny, c);
        if (!holds(next.allow, c)) next.allow.push_back(c);
        next.allow_only = true;  // kept: emptying the list later refuses everything, never opens it
    }
    for (const auto &c : deny) {
        std::erase(next.allow, c);
        if (!holds(next.deny, c)) next.deny.push_back(c);
    }
    if (next.allow.size() + next.deny.size() > 4096) throw std::invalid_argument("at most 4096 entries in the egress policy");
    network_.user_net->change(next);
    return network_state(false);
}

json ControlServer::lifetime_state() {
    json out = lifetime_ != nullptr ? lifetime_->state()
                                    : json{{"lifetime_s", nullptr}, {"time_left_s", nullptr}, {"expires_at", nullptr}, {"idle_timeout_s", nullptr},
                                           {"idle_action", nullptr}, {"idle_s", nullptr}, {"paused", false}};
    out["ok"] = true;
    return out;
}

json ControlServer::extend(const json &request) {
    if (!request.contains("seconds") || !request["seconds"].is_number_integer())
        throw std::invalid_argument("extend needs \"seconds\", a whole number");
    if (lifetime_ == nullptr) throw std::invalid_argument("this sandbox has no lifetime to extend (sandbox.lifetime was not set at its start)");
    json out = lifetime_->extend(request["seconds"].get<long long>());
    out["ok"] = true;
    return out;
}

}  // namespace sandbox
