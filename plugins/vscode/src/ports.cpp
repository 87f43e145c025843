#include "ports.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>

namespace actionhost::vscode {
namespace {

// Binds a TCP socket to addr:port; returns the bound port or -1.
int try_bind(uint32_t addr, int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(addr);
    sa.sin_port = htons(static_cast<uint16_t>(port));
    int bound = -1;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0) {
        socklen_t len = sizeof sa;
        if (::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) == 0) bound = ntohs(sa.sin_port);
    }
    ::close(fd);
    return bound;
}

}  // namespace

std::optional<int> parse_port(const std::string &text) {
    if (text.empty() || text.size() > 5) return std::nullopt;
    int v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (v < 1 || v > 65535) return std::nullopt;
    return v;
}

bool port_available(int port) { return try_bind(INADDR_ANY, port) == port; }

std::optional<int> find_free_port(int first, int last, int attempts) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> pick(first, last);
    for (int i = 0; i < attempts; ++i) {
        int p = pick(rng);
        if (port_available(p)) return p;
    }
    return std::nullopt;
}

}  // namespace actionhost::vscode
