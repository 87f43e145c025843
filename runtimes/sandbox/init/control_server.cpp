#include "control_server.hpp"

#include <actionhost/lifetime/lifetime_requests.hpp>

#include <algorithm>
#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

int port_field(const json &request, const char *name, int fallback) {
    if (!request.contains(name)) return fallback;
    const json &v = request[name];
    if (!v.is_number_integer()) throw std::invalid_argument(std::string(name) + " must be a whole number");
    const auto n = v.get<long long>();
    if (n < 0 || n > 65535) throw std::invalid_argument(std::string(name) + " must be 0..65535, not " + std::to_string(n));
    return static_cast<int>(n);
}

}  // namespace

ControlServer::ControlServer(asio::io_context &io, int listen_fd, std::string ports_socket, Network network, LifetimeKeeper *lifetime)
    : ports_(io, std::move(ports_socket)), network_(std::move(network)), lifetime_(lifetime),
      server_(std::make_unique<actionhost::lifetime::JsonLineServer>(io, listen_fd, [this](const json &request) { return answer(request); })) {}

ControlServer::~ControlServer() = default;

json ControlServer::answer(const json &request) {
    return actionhost::lifetime::answer_safely([&]() -> json {
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
        if (auto answer = actionhost::lifetime::answer_lifetime_request(lifetime_, request)) return *answer;
        throw std::invalid_argument("unknown request '" + op + "' (publish, unpublish, ports, net, net_change, lifetime, extend)");
    });
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

}  // namespace sandbox
