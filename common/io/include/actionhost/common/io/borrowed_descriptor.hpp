// A Boost.Asio stream descriptor over a descriptor that someone else owns (a child's pipe or terminal
// held by common::ChildProcess, a signalfd made by main): it is waited on and read through the event
// loop, then released — never closed — when this object goes, so its owner closes it once, as before.
//
// Asio makes the descriptor non-blocking (FIONBIO) before its first wait: only for descriptors that are
// non-blocking already or ours alone (never a terminal shared with a parent shell).
#pragma once

#include <boost/asio/posix/stream_descriptor.hpp>

namespace actionhost::common::io {

class BorrowedDescriptor : public boost::asio::posix::stream_descriptor {
  public:
    // `fd` < 0: a closed descriptor (is_open() false), for an optional one such as a missing pidfd.
    template <class ExecutionContext>
    BorrowedDescriptor(ExecutionContext &context, int fd) : boost::asio::posix::stream_descriptor(context) {
        if (fd >= 0) assign(fd);
    }
    ~BorrowedDescriptor() { forget(); }
    BorrowedDescriptor(const BorrowedDescriptor &) = delete;
    BorrowedDescriptor &operator=(const BorrowedDescriptor &) = delete;

    // Stops watching it (pending operations end with operation_aborted) and hands it back unclosed.
    void forget() {
        if (is_open()) release();
    }
};

}  // namespace actionhost::common::io
