#include "output_relay.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace sandbox {

namespace {

void write_all(int fd, const char *data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the log is best effort: a full disk must not stop the sandbox
        data += n;
        size -= static_cast<size_t>(n);
    }
}

}  // namespace

OutputRelay::~OutputRelay() { close_pipe(); }

void OutputRelay::close_pipe() {
    if (pipe_fd_ >= 0) ::close(pipe_fd_);
    pipe_fd_ = -1;
}

bool OutputRelay::pump() {
    if (pipe_fd_ < 0) return false;
    char buf[65536];
    const ssize_t n = ::read(pipe_fd_, buf, sizeof buf);
    if (n > 0) {
        const size_t keep = logged_ >= cap_ ? 0 : std::min(static_cast<size_t>(n), cap_ - logged_);
        write_all(log_fd_, buf, keep);
        logged_ += static_cast<size_t>(n);
        if (logged_ > cap_) {
            const std::string note = "\n[ah-sandbox-init: the sandbox's output passed " + std::to_string(cap_ >> 20) +
                                     " MiB; the rest is discarded]\n";
            write_all(log_fd_, note.data(), note.size());
            close_pipe();
        }
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_pipe();  // every writer is gone
    }
    return (n > 0 || (n < 0 && errno == EINTR)) && pipe_fd_ >= 0;
}

void OutputRelay::drain() {
    char buf[65536];
    for (ssize_t n; pipe_fd_ >= 0 && logged_ < cap_ && (n = ::read(pipe_fd_, buf, sizeof buf)) > 0; logged_ += static_cast<size_t>(n))
        write_all(log_fd_, buf, std::min(static_cast<size_t>(n), cap_ - logged_));
    close_pipe();
}

}  // namespace sandbox
