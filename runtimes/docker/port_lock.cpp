#include "port_lock.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <stdexcept>

namespace docker {

bool port_is_free(int port, const std::string &address) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) a.sin_addr.s_addr = htonl(INADDR_ANY);
    bool ok = bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
    close(fd);
    return ok;
}

PortLock PortLock::acquire(int lo, int hi, const std::string &address, int attempts) {
    const char *tmp = getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/openhands_port_locks";
    std::filesystem::create_directories(dir);
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> pick(lo, hi);
    for (int i = 0; i < attempts; ++i) {
        int port = pick(rng);
        std::string path = dir + "/port_" + std::to_string(port) + ".lock";
        int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            close(fd);
            continue;
        }
        if (!port_is_free(port, address)) {
            close(fd);
            continue;
        }
        PortLock lock;
        lock.port_ = port;
        lock.fd_ = fd;
        return lock;
    }
    throw std::runtime_error("no free port in " + std::to_string(lo) + "-" + std::to_string(hi));
}

PortLock::~PortLock() { release(); }
PortLock::PortLock(PortLock &&o) noexcept : port_(o.port_), fd_(o.fd_) { o.fd_ = -1; }
PortLock &PortLock::operator=(PortLock &&o) noexcept {
    if (this != &o) {
        release();
        port_ = o.port_;
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}
void PortLock::release() {
    if (fd_ >= 0) close(fd_);  // closing drops the flock
    fd_ = -1;
}

}  // namespace docker
