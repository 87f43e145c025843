// The owner of one file descriptor: closes it once, when the owner goes (or on reset()). Moves, never
// copies. The one such type of the tree: code that opens a descriptor and must close it on every way
// out holds it in a UniqueFd.
//
// Threads: one owner at a time; get() may be read from any thread while the owner keeps it.
#pragma once

#include <unistd.h>

#include <utility>

namespace actionhost::common::io {

class UniqueFd {
  public:
    UniqueFd() = default;
    // Takes `fd` (< 0: holds nothing, so `UniqueFd(open(...))` keeps a failed open's -1 as "none").
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept {
        if (this != &other) reset(std::exchange(other.fd_, -1));
        return *this;
    }
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    ~UniqueFd() { reset(); }

    int get() const { return fd_; }
    bool ok() const { return fd_ >= 0; }
    explicit operator bool() const { return ok(); }
    // Closes what is held and takes `fd` instead.
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    // Hands the descriptor over unclosed.
    int release() { return std::exchange(fd_, -1); }

  private:
    int fd_ = -1;
};

}  // namespace actionhost::common::io
