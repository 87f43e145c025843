#include "address_watch.hpp"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sandbox {

namespace {

int subscribe() {
    const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (fd < 0) throw std::runtime_error(std::string("cannot open an rtnetlink socket: ") + std::strerror(errno));
    sockaddr_nl a{};
    a.nl_family = AF_NETLINK;
    a.nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        const int e = errno;
        ::close(fd);
        throw std::runtime_error(std::string("cannot subscribe to the machine's address changes: ") + std::strerror(e));
    }
    return fd;
}

}  // namespace

MachineAddressWatch::MachineAddressWatch(boost::asio::io_context &io, std::function<void()> changed)
    : netlink_(io, subscribe()), settle_(io), changed_(std::move(changed)) {
    read();
}

void MachineAddressWatch::read() {
    // What changed is not read from the messages: the whole list is taken again once they settle (an
    // overrun of the socket's buffer, ENOBUFS, says the same: something changed).
    netlink_.async_read_some(boost::asio::buffer(buffer_), [this](const boost::system::error_code &ec, size_t) {
        if (ec == boost::asio::error::operation_aborted || ec == boost::asio::error::bad_descriptor) return;
        settle_.expires_after(kSettle);
        settle_.async_wait([this](const boost::system::error_code &e) {
            if (!e) changed_();
        });
        read();
    });
}

}  // namespace sandbox
