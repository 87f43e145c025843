// OpenHands' port allocation (utils/port_lock.py): a random free port of a range, held with a file lock
// <tmp>/openhands_port_locks/port_<n>.lock so concurrent clients never pick the same one.
#pragma once

#include <string>

namespace docker {

class PortLock {
  public:
    PortLock() = default;
    ~PortLock();
    PortLock(PortLock &&other) noexcept;
    PortLock &operator=(PortLock &&other) noexcept;
    PortLock(const PortLock &) = delete;
    PortLock &operator=(const PortLock &) = delete;

    // Picks a port in [lo, hi] that is bindable on `address` and whose lock file is not held; tries at
    // most `attempts` random ports. Throws std::runtime_error when none is found.
    static PortLock acquire(int lo, int hi, const std::string &address = "0.0.0.0", int attempts = 100);
    int port() const { return port_; }
    void release();

  private:
    int port_ = 0;
    int fd_ = -1;
};

// True when a TCP socket can bind `address`:`port` now.
bool port_is_free(int port, const std::string &address);

}  // namespace docker
