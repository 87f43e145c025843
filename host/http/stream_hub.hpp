// Live output of running actions, fanned out to followers of a session (the /stream SSE endpoint).
// Publishing is cheap when nobody follows; a slow follower loses its oldest events, never the host's
// memory.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace actionhost::host {

struct StreamEvent {
    std::string type;  // "action_start", "output", "action_end", "dropped"
    std::string data;  // JSON text
};

class StreamHub {
  public:
    class Subscription {
      public:
        // Waits up to `timeout_ms` for events; returns what is queued (maybe nothing). Empty and
        // closed() → the hub is shutting down.
        std::vector<StreamEvent> next(int timeout_ms);
        bool closed() const;

      private:
        friend class StreamHub;
        mutable std::mutex mu_;
        std::condition_variable cv_;
        std::deque<StreamEvent> queue_;
        size_t queued_bytes_ = 0;
        size_t dropped_ = 0;
        bool closed_ = false;
    };

    static constexpr size_t kMaxQueuedBytes = 8 << 20;

    std::shared_ptr<Subscription> subscribe(const std::string &session);
    void unsubscribe(const std::string &session, const std::shared_ptr<Subscription> &sub);
    void publish(const std::string &session, const std::string &type, const std::string &data);
    // Whether anyone follows `session`: lets publishers skip building events nobody reads.
    bool has_followers(const std::string &session);
    void close_all();

  private:
    std::mutex mu_;
    std::map<std::string, std::vector<std::shared_ptr<Subscription>>> subs_;
};

}  // namespace actionhost::host
