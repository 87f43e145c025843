// The public side of a provider's port exposure (Runloop tunnel, Daytona preview URL, Modal tunnel):
// an HTTP reverse proxy on 127.0.0.1:<ephemeral> to 127.0.0.1:<sandbox port>. While nothing listens
// there (the server is not up yet, the sandbox is stopped) it answers 502, as the providers' proxies
// do. With a token set, requests must carry it in `token_header`, else 401.
// It also tells the fakes what their providers count as a sandbox's activity: the connections open
// through it (Modal: "an open TCP connection over one of its Tunnels") and when a request last passed.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "support/cloud_fakes/fake_http_server.hpp"

namespace cloud_fakes {

class TunnelProxy {
  public:
    // With `tls`, the public side is https:// (as the providers' are); the sandbox side stays plain.
    TunnelProxy(int target_port, std::string token_header = "", std::string token = "", std::optional<actionhost::testing::TlsServerFiles> tls = std::nullopt);
    ~TunnelProxy();
    std::string url() const;
    int port() const;
    // A closed tunnel answers 502 for everything (the sandbox is gone).
    void set_open(bool open) { open_->store(open); }
    // Client connections open now (kept-alive ones included), and requests being answered now.
    int open_connections() const;
    int requests_in_flight() const;
    // When the last request through it began or ended; the proxy's start when none has.
    std::chrono::steady_clock::time_point last_request() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::shared_ptr<std::atomic<bool>> open_;
};

}  // namespace cloud_fakes
