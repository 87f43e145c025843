#include "blocking_socket.hpp"

#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

#include <cerrno>

namespace actionhost::common::http::detail {

bool BlockingSocket::wait(short events) {
    pollfd p{fd_, events, 0};
    for (int attempt = 0; attempt < 1000; ++attempt) {  // EINTR only
        const int n = ::poll(&p, 1, static_cast<int>(timeout_.count()));
        if (n > 0) return true;  // ready, or an error/hang-up the next call reports
        if (n == 0 || errno != EINTR) return false;
    }
    return false;
}

ssize_t BlockingSocket::read_some(char *data, size_t size) {
    if (broken_) return -1;
    for (int attempt = 0; attempt < 1000; ++attempt) {
        const ssize_t n = ::recv(fd_, data, size, 0);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        if ((errno != EAGAIN && errno != EWOULDBLOCK) || !wait(POLLIN)) break;
    }
    broken_ = true;
    return -1;
}

bool BlockingSocket::write_all(std::string_view data) {
    for (int stalls = 0; !broken_ && !data.empty() && stalls < 1000000;) {
        const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (n > 0) {
            data.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        ++stalls;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait(POLLOUT)) continue;
        broken_ = true;
    }
    return !broken_ && data.empty();
}

bool BlockingSocket::write_file(int file_fd, size_t count) {
    for (int stalls = 0; !broken_ && count > 0 && stalls < 1000000;) {
        const ssize_t n = ::sendfile(fd_, file_fd, nullptr, count);
        if (n > 0) {
            count -= static_cast<size_t>(n);
            continue;
        }
        ++stalls;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait(POLLOUT)) continue;
        broken_ = true;  // n == 0: the file is shorter than it said
    }
    return !broken_ && count == 0;
}

}  // namespace actionhost::common::http::detail
