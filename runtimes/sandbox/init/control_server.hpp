// The sandbox's control socket: how a later `ahctl` (or the client library of any process of the
// caller) asks the running sandbox's ah-sandbox-init ("P", outside the namespaces) for what only it can
// do: publishing ports (port_publisher.hpp) and changing or reading the egress policy of a sandbox on
// the internet (user_net.hpp). It listens in the run directory (the caller's
// alone, 0700; the socket 0600) and answers only a peer of the caller's uid or the machine's root.
//
// One JSON request line per connection, one JSON answer line back, then the connection closes:
//   {"op": "publish", "port": 8000, "machine_port": 0, "address": "127.0.0.1"}
//                                     → {"ok": true, "port": 8000, "address": "127.0.0.1:41234"}
//   {"op": "unpublish", "port": 8000} → {"ok": true}
//   {"op": "ports"}                   → {"ok": true, "ports": [{"port": 8000, "address": "127.0.0.1:41234"}]}
//   {"op": "net"}                     → {"ok": true, "mode": "internet", "allow": [CIDR], "deny": [CIDR],
//                                         "refused": N, "log": [{"address", "protocol", "port", "packets"}]}
//   {"op": "net_change", "allow": [CIDR], "deny": [CIDR], "remove": [CIDR]}
//                                     → as "net" without the log, once the filter holds the new policy
//     (an entry allowed leaves the deny list and the reverse; "remove" takes it out of either)
//   {"op": "lifetime"}, {"op": "extend", "seconds": N}: as every keeper of a lifetime answers them
//                                     (actionhost/lifetime/lifetime_requests.hpp)
//   a request refused as such         → {"ok": false, "error": "a sentence", "invalid": true}
//   a failure of the machine's        → {"ok": false, "error": "a sentence"}  (its port taken)
// The socket's protocol (one line each way, 4 KiB, 5 s, the peer's uid checked) is
// actionhost/lifetime/json_line_socket.hpp's. Runs on the supervisor's event loop (one thread).
#pragma once

#include <boost/asio/io_context.hpp>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <actionhost/lifetime/json_line_socket.hpp>
#include <actionhost/lifetime/lifetime_keeper.hpp>

#include "port_publisher.hpp"
#include "user_net.hpp"

namespace sandbox {

using actionhost::lifetime::LifetimeKeeper;

class ControlServer {
  public:
    // The sandbox's network, for the "net" requests: its mode and, for "internet", its connection.
    struct Network {
        std::string mode = "none";
        UserModeNetwork *user_net = nullptr;  // outlives the server
    };
    // Takes `listen_fd` (a listening unix socket). `ports_socket`: pid 1's, for the publisher.
    // `lifetime`: the sandbox's keeper, or nullptr for one with neither lifetime nor idle timeout.
    ControlServer(boost::asio::io_context &io, int listen_fd, std::string ports_socket, Network network,
                  LifetimeKeeper *lifetime = nullptr);
    ~ControlServer();

    // The answer to one request (public for the tests of the protocol).
    nlohmann::json answer(const nlohmann::json &request);
    PortPublisher &ports() { return ports_; }

  private:
    nlohmann::json network_state(bool with_log);
    nlohmann::json change_network(const nlohmann::json &request);

    PortPublisher ports_;
    Network network_;
    LifetimeKeeper *lifetime_;
    std::unique_ptr<actionhost::lifetime::JsonLineServer> server_;  // last: it calls answer() of the rest
};

}  // namespace sandbox
