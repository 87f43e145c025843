// Chromium's DevTools endpoint over the two pipes of --remote-debugging-pipe (as Playwright drives it),
// speaking the Chrome DevTools Protocol: numbered commands answered by id, events buffered with sequence
// numbers so that a caller can wait for "the first X after I did Y" without racing the reader thread.
// Flat sessions (Target.attachToTarget{flatten:true}) ride on the same pipes, addressed by sessionId.
//
// Why pipes: DevTools has no authentication. On a TCP port (--remote-debugging-port) anyone who can
// reach the browser's loopback — another local user, another sandbox sharing the network — can navigate
// it to file:// URLs and read or download files as the browser's user. A pipe is reachable only through
// the descriptors the host gave the browser: nothing listens anywhere.
//
// Messages are JSON texts, each ended by a NUL byte, in both directions.
//
// Threads: call(), mark(), wait_event(), events_since(), alive() and close() may be called from any
// thread, concurrently; one reader thread of our own reads the browser's pipe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <actionhost/common/io/unique_fd.hpp>

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
// The connection is gone (the browser exited or closed its pipe).
struct CdpClosed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CdpEvent {
    uint64_t seq = 0;
    std::string method;
    std::string session_id;  // "" for browser-level events
    nlohmann::json params;
    size_t bytes = 0;  // the size of its message: the buffer of events is bounded by their sum
};

// Events are kept for waiters that marked a point before them; the oldest go first once there are more
// than this many, or more bytes than kMaxBufferedEventBytes (the newest event is always kept), so a
// chatty page — or whoever else writes to the browser's pipe — cannot grow the host's memory without bound.
inline constexpr size_t kMaxBufferedEvents = 20000;
inline constexpr size_t kMaxBufferedEventBytes = 64u << 20;

class CdpConnection {
  public:
    // Takes our ends of the two pipes: `to_browser` is written (the browser reads its other end as fd 3),
    // `from_browser` is read (the browser writes its other end as fd 4). Starts the reader.
    // `max_event_bytes`: the buffer's byte bound (kMaxBufferedEventBytes; a test sets a small one).
    CdpConnection(common::io::UniqueFd to_browser, common::io::UniqueFd from_browser,
                  size_t max_event_bytes = kMaxBufferedEventBytes);
    ~CdpConnection();
    CdpConnection(const CdpConnection &) = delete;
    CdpConnection &operator=(const CdpConnection &) = delete;

    // Sends a command and waits for its answer until `deadline` (the send too: a browser that stopped
    // reading its pipe cannot hold the caller past it). Returns the "result" object.
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
    // Stops the reader and closes both pipes (idempotent).
    void close();

  private:
    void reader_loop();
    void dispatch(std::string_view text);
    void send_message(const std::string &text, Clock::time_point deadline);

    common::io::UniqueFd to_browser_;
    common::io::UniqueFd from_browser_;
    common::io::UniqueFd wake_;  // an eventfd: close() wakes the reader out of its poll
    std::thread reader_;

    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::mutex send_mu_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, std::optional<nlohmann::json>> pending_;  // id -> answer once it arrived
    std::deque<CdpEvent> events_;
    const size_t max_event_bytes_;
    size_t event_bytes_ = 0;  // the sum of events_' bytes
    uint64_t event_seq_ = 0;
    bool closed_ = false;
};

}  // namespace actionhost::browser
