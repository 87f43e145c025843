#include "support/free_port.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <stdexcept>

namespace actionhost::testing {

int free_port() {
    // Checked with a plain bind on every address (no SO_REUSEADDR/SO_REUSEPORT), which fails while
    // anyone listens on the port, on loopback or any other address.
    static std::mt19937 rng{std::random_device{}()};
    std::uniform_int_distribution<int> pick(20000, 29999);
    for (int i = 0; i < 200; ++i) {
        const int port = pick(rng);
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        const bool ok = ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
        ::close(fd);
        if (ok) return port;
    }
    throw std::runtime_error("no free port in 20000-29999");
}

}  // namespace actionhost::testing
