// Reading and writing a connected socket from a handler's thread, each call bounded by a time without
// progress. The event loop leaves the socket non-blocking; these wait with poll(2) instead of blocking,
// so a peer that stops reading or sending releases the thread after the timeout, and a shutdown(2) by
// the server (at stop) wakes it at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>
#include <sys/types.h>

namespace actionhost::common::http::detail {

class BlockingSocket {
  public:
    BlockingSocket(int fd, std::chrono::milliseconds timeout) : fd_(fd), timeout_(timeout) {}

    // Up to `size` bytes; 0 at the peer's end of stream; -1 on error or timeout.
    ssize_t read_some(char *data, size_t size);
    // Everything or false (error, timeout, peer gone). After one failure every call fails.
    bool write_all(std::string_view data);
    // `count` bytes of `file_fd` from its current offset, with sendfile(2). False as write_all.
    bool write_file(int file_fd, size_t count);
    bool broken() const { return broken_; }
    // From now on a call waits at most `timeout` for progress (0: takes only what is ready at once).
    void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

  private:
    bool wait(short events);

    int fd_;
    std::chrono::milliseconds timeout_;
    bool broken_ = false;
};

}  // namespace actionhost::common::http::detail
