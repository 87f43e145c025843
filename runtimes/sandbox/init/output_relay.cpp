#include "output_relay.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

int relay_output_until_exit(pid_t child, int child_pidfd, int pipe_fd, int log_fd, size_t cap) {
    size_t logged = 0;
    char buf[65536];
    for (int rounds = 0; rounds < 100'000'000; ++rounds) {
        pollfd fds[2] = {{child_pidfd, POLLIN, 0}, {pipe_fd, POLLIN, 0}};
        const nfds_t count = pipe_fd >= 0 ? 2 : 1;
        if (::poll(fds, count, child_pidfd >= 0 ? -1 : 100) < 0 && errno != EINTR) break;
        if (pipe_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(pipe_fd, buf, sizeof buf);
            if (n > 0) {
                const size_t keep = logged >= cap ? 0 : std::min(static_cast<size_t>(n), cap - logged);
                write_all(log_fd, buf, keep);
                logged += static_cast<size_t>(n);
                if (logged > cap) {
                    const std::string note = "\n[ah-sandbox-init: the sandbox's output passed " + std::to_string(cap >> 20) +
                                             " MiB; the rest is discarded]\n";
                    write_all(log_fd, note.data(), note.size());
                    ::close(pipe_fd);
                    pipe_fd = -1;
                }
            } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                ::close(pipe_fd);  // every writer is gone
                pipe_fd = -1;
            }
        }
        int status = 0;
        const pid_t done = ::waitpid(child, &status, WNOHANG);
        if (done == child) {
            // What the last processes wrote before the end is still worth having.
            for (ssize_t n; pipe_fd >= 0 && logged < cap && (n = ::read(pipe_fd, buf, sizeof buf)) > 0; logged += static_cast<size_t>(n))
                write_all(log_fd, buf, std::min(static_cast<size_t>(n), cap - logged));
            if (pipe_fd >= 0) ::close(pipe_fd);
            return status;
        }
        if (done < 0 && errno != EINTR) break;
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (pipe_fd >= 0) ::close(pipe_fd);
    return status;
}

}  // namespace sandbox
