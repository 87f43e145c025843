#include "protocol/connection_info.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "protocol/hmac_signer.hpp"
#include "actionhost/common/random.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::jupyter {

std::string ConnectionInfo::endpoint(int port) const { return transport + "://" + ip + ":" + std::to_string(port); }

nlohmann::json ConnectionInfo::to_json() const {
    return {{"shell_port", shell_port},   {"iopub_port", iopub_port}, {"stdin_port", stdin_port},
            {"control_port", control_port}, {"hb_port", hb_port},     {"ip", ip},
            {"key", key},                 {"transport", transport},   {"signature_scheme", signature_scheme},
            {"kernel_name", kernel_name}};
}

ConnectionInfo make_connection_info() {
    // All five sockets stay bound until every port is known, so the OS cannot hand out one port twice.
    std::array<int, 5> fds{-1, -1, -1, -1, -1};
    std::array<int, 5> ports{};
    auto close_all = [&] {
        for (int fd : fds)
            if (fd >= 0) ::close(fd);
    };
    for (size_t i = 0; i < fds.size(); ++i) {
        fds[i] = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fds[i] < 0) {
            close_all();
            throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
        }
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        socklen_t len = sizeof addr;
        if (::bind(fds[i], reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
            ::getsockname(fds[i], reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
            const int err = errno;
            close_all();
            throw std::runtime_error(std::string("cannot pick a free port on 127.0.0.1: ") + std::strerror(err));
        }
        ports[i] = ntohs(addr.sin_port);
    }
    close_all();
    ConnectionInfo info;
    info.shell_port = ports[0];
    info.iopub_port = ports[1];
    info.stdin_port = ports[2];
    info.control_port = ports[3];
    info.hb_port = ports[4];
    info.key = common::random_hex(32);
    return info;
}

void write_connection_file(const ConnectionInfo &info, const std::string &path) {
    const std::string text = actionhost::common::dump_json(info.to_json(), 1) + "\n";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw std::runtime_error("cannot write connection file " + path + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            throw std::runtime_error("cannot write connection file " + path + ": " + std::strerror(err));
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
}

}  // namespace actionhost::jupyter
