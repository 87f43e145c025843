// The host's recent log lines, kept in memory for GET /logs (`ahctl logs [-f]`): a bounded ring with a
// sequence number per line, so a follower asking "after line N" neither misses nor repeats one, and
// learns how many rotated out before it asked. A long poll rather than a StreamHub subscription: the
// backlog and the lines after it come from one place in order, with nothing queued per follower.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace actionhost::host {

class LogRing {
  public:
    static constexpr size_t kDefaultMaxLines = 2000;
    static constexpr size_t kDefaultMaxBytes = 1 << 20;

    explicit LogRing(size_t max_lines = kDefaultMaxLines, size_t max_bytes = kDefaultMaxBytes);

    // Appends one line (its trailing newline removed) and wakes the followers. Thread: any.
    void append(std::string line);

    struct Page {
        std::vector<std::string> lines;
        uint64_t next = 0;     // the sequence number to ask from next time
        uint64_t dropped = 0;  // lines from `from` that rotated out before this call
    };
    // The lines numbered `from` and after (at most `max_lines`); when there are none yet, waits up to
    // `wait` for one (or for close()). Thread: any.
    Page since(uint64_t from, std::chrono::milliseconds wait, size_t max_lines = kDefaultMaxLines);

    // Wakes every waiter for good (the host is stopping).
    void close();

  private:
    const size_t max_lines_, max_bytes_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::string> lines_;
    uint64_t first_ = 0;  // the sequence number of lines_.front()
    size_t bytes_ = 0;
    bool closed_ = false;
};

}  // namespace actionhost::host
