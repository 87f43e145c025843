// The floor for HTTP round trips: a minimal keep-alive HTTP/1.1 server on loopback that answers every
// request with a fixed small JSON body, doing nothing else. What a round trip costs on this machine
// before any server logic.
#pragma once

#include <atomic>
#include <thread>

namespace actionhost::bench {

class LoopbackFloorServer {
  public:
    LoopbackFloorServer();
    ~LoopbackFloorServer();
    int port() const { return port_; }

  private:
    void serve();
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace actionhost::bench
