#include "sys/worker_wire.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <algorithm>
#include <cstring>

namespace actionhost::host {
namespace {

common::Status read_exact(int fd, char *buf, size_t len, std::optional<std::chrono::steady_clock::time_point> deadline) {
    size_t got = 0;
    while (got < len) {
        int wait_ms = -1;
        if (deadline) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0) return common::fail("timeout");
            wait_ms = static_cast<int>(left);
        }
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, wait_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return common::fail(std::string("poll: ") + std::strerror(errno));
        if (r == 0) return common::fail("timeout");
        const ssize_t n = ::recv(fd, buf + got, len - got, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) return common::fail(std::string("recv: ") + std::strerror(errno));
        if (n == 0) return common::fail("closed");
        got += static_cast<size_t>(n);
    }
    return common::ok();
}

common::Status send_all(int fd, const std::string &frame) {
    size_t sent = 0;
    while (sent < frame.size()) {
        // MSG_NOSIGNAL: a worker that died must be an error here, not a SIGPIPE for the host.
        const ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return common::fail(std::string("send: ") + std::strerror(errno));
        sent += static_cast<size_t>(n);
    }
    return common::ok();
}

void append_frame(std::string &out, std::string_view payload) {
    const uint32_t len = static_cast<uint32_t>(payload.size());
    out.append(reinterpret_cast<const char *>(&len), sizeof len);
    out.append(payload);
}

}  // namespace

common::Status write_frame(int fd, const std::string &payload) {
    if (payload.size() > kMaxFrame) return common::fail("a frame of " + std::to_string(payload.size()) + " bytes");
    std::string frame;
    frame.reserve(payload.size() + 4);
    append_frame(frame, payload);
    return send_all(fd, frame);
}

common::Status write_frames(int fd, const std::string &message, std::string_view raw) {
    if (message.size() > kMaxFrame || raw.size() > kMaxFrame)
        return common::fail("a frame of " + std::to_string(std::max(message.size(), raw.size())) + " bytes");
    std::string frames;
    frames.reserve(message.size() + raw.size() + 8);
    append_frame(frames, message);
    append_frame(frames, raw);
    return send_all(fd, frames);
}

common::Result<std::string> read_frame(int fd, std::optional<std::chrono::steady_clock::time_point> deadline) {
    uint32_t len = 0;
    if (auto r = read_exact(fd, reinterpret_cast<char *>(&len), sizeof len, deadline); !r) return r.as_failure();
    if (len > kMaxFrame) return common::fail("a frame of " + std::to_string(len) + " bytes");
    std::string payload(len, '\0');
    if (auto r = read_exact(fd, payload.data(), len, deadline); !r) return r.as_failure();
    return payload;
}

}  // namespace actionhost::host
