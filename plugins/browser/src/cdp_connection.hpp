// One WebSocket connection to Chromium's browser DevTools endpoint, speaking the Chrome DevTools
// Protocol: numbered commands answered by id, events buffered with sequence numbers so that a caller
// can wait for "the first X after I did Y" without racing the reader thread. Flat sessions
// (Target.attachToTarget{flatten:true}) ride on the same socket, addressed by sessionId.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace Poco::Net {
class WebSocket;
class HTTPClientSession;
}  // namespace Poco::Net

namespace actionhost::browser {

using Clock = std::chrono::steady_clock;

// A command answered with {"error":{...}}; what() is the protocol's message.
struct CdpError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// No answer before the deadline.
struct CdpTimeout : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The connection is gone (the browser exited or closed the socket).
struct CdpClosed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CdpEvent {
    uint64_t seq = 0;
    std::string method;
    std::string session_id;  // "" for browser-level events
    nlohmann::json params;
};

class CdpConnection {
  public:
    // Connects to ws://127.0.0.1:<port><path>. Throws on failure.
    CdpConnection(int port, const std::string &path, std::chrono::milliseconds connect_timeout);
    ~CdpConnection();
    CdpConnection(const CdpConnection &) = delete;
    CdpConnection &operator=(const CdpConnection &) = delete;

    // Sends a command and waits for its answer until `deadline`. Returns the "result" object.
    nlohmann::json call(const std::string &method, const nlohmann::json &params, const std::string &session_id,
                        Clock::time_point deadline);

    // The sequence number of the last event received so far; events after it are "new".
    uint64_t mark() const;

    // Waits until an event with seq > `after` satisfies `pred`, or `deadline` passes (nullopt).
    std::optional<CdpEvent> wait_event(uint64_t after, const std::function<bool(const CdpEvent &)> &pred,
                                       Clock::time_point deadline);
    // Events with seq > `after` satisfying `pred`, without waiting.
    std::vector<CdpEvent> events_since(uint64_t after, const std::function<bool(const CdpEvent &)> &pred) const;

    bool alive() const;
    // Stops the reader and closes the socket (idempotent).
    void close();

  private:
    void reader_loop();

    std::unique_ptr<Poco::Net::HTTPClientSession> http_;
    std::unique_ptr<Poco::Net::WebSocket> ws_;
    std::thread reader_;

    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::mutex send_mu_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, std::optional<nlohmann::json>> pending_;  // id -> answer once it arrived
    std::deque<CdpEvent> events_;
    uint64_t event_seq_ = 0;
    bool closed_ = false;
};

}  // namespace actionhost::browser
