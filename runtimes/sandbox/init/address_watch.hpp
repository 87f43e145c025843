// The machine's addresses, watched for a sandbox on the internet (user_net.hpp): the egress filter
// refuses every address of the machine's interfaces, and a machine gains addresses while sandboxes run
// (a DHCP renewal, a VPN, a container bridge coming up). ah-sandbox-init, in the machine's network
// namespace, listens to the kernel's address notifications (rtnetlink's IPv4 and IPv6 address groups:
// no privilege needed) and, a moment after the last of a burst, has the filter take the new list.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <string>

namespace sandbox {

class MachineAddressWatch {
  public:
    // `changed` runs on `io`'s thread, once per burst of notifications (kSettle after the last). Throws
    // std::runtime_error when the notifications cannot be subscribed to.
    MachineAddressWatch(boost::asio::io_context &io, std::function<void()> changed);
    MachineAddressWatch(const MachineAddressWatch &) = delete;
    MachineAddressWatch &operator=(const MachineAddressWatch &) = delete;
    static constexpr std::chrono::milliseconds kSettle{50};

  private:
    void read();
    boost::asio::posix::stream_descriptor netlink_;
    boost::asio::steady_timer settle_;
    std::function<void()> changed_;
    char buffer_[16384];
};

}  // namespace sandbox
