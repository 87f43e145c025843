#include "support/loopback_floor.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace actionhost::bench {

LoopbackFloorServer::LoopbackFloorServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0)
        throw std::runtime_error("floor server: bind/listen failed");
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
}

LoopbackFloorServer::~LoopbackFloorServer() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    if (thread_.joinable()) thread_.join();
}

void LoopbackFloorServer::serve() {
    // One client at a time is all the benchmark needs.
    while (!stop_) {
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd < 0) return;
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        std::string buf;
        char chunk[65536];
        const std::string body = "{\"status\":\"ok\"}";
        const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                  std::to_string(body.size()) + "\r\nConnection: Keep-Alive\r\n\r\n" + body;
        while (!stop_) {
            const ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n <= 0) break;
            buf.append(chunk, static_cast<size_t>(n));
            // Answer each complete request (headers + Content-Length body).
            while (true) {
                const size_t end = buf.find("\r\n\r\n");
                if (end == std::string::npos) break;
                size_t content_length = 0;
                const size_t cl = buf.find("Content-Length: ");
                if (cl != std::string::npos && cl < end) content_length = std::stoul(buf.substr(cl + 16));
                if (buf.size() < end + 4 + content_length) break;
                buf.erase(0, end + 4 + content_length);
                if (::write(fd, reply.data(), reply.size()) < 0) break;
            }
        }
        ::close(fd);
    }
}

}  // namespace actionhost::bench
