// Published ports (`ahctl port`, `--publish`, OpenHands' app ports): TCP listeners on the machine, kept
// by ah-sandbox-init outside the namespaces ("P") on its supervisor's event loop for as long as the
// sandbox runs. Each connection accepted on the machine is relayed through pid 1's ports socket to the
// port inside (forwarder.hpp): the sandbox's network namespace — "none" as much as "internet" — is never
// opened to the machine, only these connections are carried in, one by one.
//
// Everything runs on the one io_context of the supervisor (one thread): publish, unpublish and the
// relays never race. A frozen (paused) sandbox whose pid 1 stops accepting makes new connections fail
// at once, never blocks this loop: the ports socket is connected without waiting.
#pragma once

#include <boost/asio/io_context.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sandbox {

struct Publication {
    int port = 0;         // the sandbox's TCP port
    std::string address;  // where the machine reaches it: "127.0.0.1:41234", "[::1]:8080"
};

class PortPublisher {
  public:
    // `ports_socket`: the path of pid 1's ports socket (outside, in the run directory).
    PortPublisher(boost::asio::io_context &io, std::string ports_socket);
    ~PortPublisher();

    // Listens on `address` (an IP address; "" → 127.0.0.1) port `machine_port` (0: one the kernel
    // picks) and relays every connection to `port` inside. Returns the publication. Throws
    // std::invalid_argument (a port out of 1..65535, an address that is not an IP address, `port`
    // already published, too many publications) or std::runtime_error (the machine's port is taken or
    // not ours to bind), leaving nothing half made.
    Publication publish(int port, int machine_port, const std::string &address);
    // Stops listening for `port` and closes the connections it carried. Throws std::invalid_argument
    // when `port` is not published.
    void unpublish(int port);
    std::vector<Publication> list() const;

    static constexpr size_t kMaxPublications = 256;
    // Connections carried at once, all ports together: any local user can connect to a published port,
    // and each connection holds descriptors here and in pid 1. Past the cap a new one is closed at once,
    // so the control socket and the relays already open keep working.
    static constexpr size_t kMaxConnections = 256;

  private:
    struct Listener;
    void accept_next(const std::shared_ptr<Listener> &listener);

    boost::asio::io_context &io_;
    std::string ports_socket_;
    std::map<int, std::shared_ptr<Listener>> listeners_;  // by the sandbox's port
    size_t live_connections();
};

}  // namespace sandbox
