#include "supervisor.hpp"

#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <actionhost/common/io/borrowed_descriptor.hpp>

#include <cerrno>
#include <chrono>
#include <optional>

#include "output_relay.hpp"

namespace sandbox {

namespace {

namespace asio = boost::asio;
using Descriptor = asio::posix::stream_descriptor;
using actionhost::common::io::BorrowedDescriptor;

// One Boost.Asio event loop on this thread: pid 1's exit (its pidfd, or a look every 100 ms without
// one), the sandbox's output, the control socket and the signals. After every event, pid 1 is looked
// for with waitpid, as whatever happened may have ended it.
class Supervisor {
  public:
    Supervisor(const Supervision &s, OutputRelay &relay)
        : s_(s), relay_(relay), exit_(io_, s.child_pidfd), output_(io_, relay.fd()), signals_(io_, s.signal_fd), control_(io_),
          tick_(io_) {
        if (s.control_fd >= 0) control_.assign(s.control_fd);  // ours: closed when done with it
    }

    int run() {
        wait_exit();
        if (output_.is_open()) wait_output();
        if (control_.is_open()) wait_control();
        if (signals_.is_open()) wait_signal();
        if (s_.start_services) services_ = s_.start_services(io_, [this] { end_once(); });
        io_.run();
        services_.reset();
        if (!status_) {  // waitpid failed: a blocking one is all that is left
            int status = 0;
            while (::waitpid(s_.child, &status, 0) < 0 && errno == EINTR) {
            }
            status_ = status;
        }
        output_.forget();  // before drain() closes it
        relay_.drain();
        return *status_;
    }

  private:
    void look_at_child() {
        int status = 0;
        const pid_t done = ::waitpid(s_.child, &status, WNOHANG);
        if (done == s_.child) status_ = status;
        if (done == s_.child || (done < 0 && errno != EINTR)) io_.stop();
    }

    void end_once() {
        if (ended_) return;
        ended_ = true;
        if (s_.end_sandbox) s_.end_sandbox();
    }

    // The pidfd is readable once pid 1 ended, and stays so: if waitpid did not reap it then (never
    // expected), a second wait would not wake again (see below), so the looks every 100 ms take over.
    void wait_exit(bool pidfd = true) {
        if (pidfd && exit_.is_open()) {
            return exit_.async_wait(Descriptor::wait_read, [this](const boost::system::error_code &ec) {
                if (ec) return;
                look_at_child();
                wait_exit(false);
            });
        }
        tick_.expires_after(std::chrono::milliseconds(100));
        tick_.async_wait([this](const boost::system::error_code &ec) {
            if (ec) return;
            look_at_child();
            wait_exit(false);
        });
    }

    // Asio's epoll waits are edge-triggered: each wake-up reads until the descriptor is empty, or the
    // next wait could sleep on bytes already there. A long stream of output yields to the other events
    // every 64 reads (posted, not waited for, as it is not empty yet).
    void wait_output() {
        output_.async_wait(Descriptor::wait_read, [this](const boost::system::error_code &ec) {
            if (!ec) pump_output();
        });
    }

    void pump_output() {
        bool more = true;
        for (int i = 0; i < 64 && more; ++i) more = relay_.pump();
        // The relay closed the pipe (its writers are gone, or the cap was reached): the descriptor is
        // forgotten at once, before anything on this thread could be given its number.
        if (relay_.fd() < 0) output_.forget();
        else if (more) asio::post(io_, [this] { pump_output(); });
        else wait_output();
        look_at_child();
    }

    void wait_control() {
        control_.async_wait(Descriptor::wait_read, [this](const boost::system::error_code &ec) {
            if (!ec) read_control();
        });
    }

    // One byte at a time, as only "detach" means something; until the socket is empty (see above).
    void read_control() {
        for (int i = 0; i < 64; ++i) {
            char byte = 0;
            const ssize_t n = ::read(control_.native_handle(), &byte, 1);
            boost::system::error_code ignored;
            if (n == 1 && byte == kDetach) {
                // Recorded as kept alive: from now on the sandbox outlives whoever started it.
                (void)!::write(control_.native_handle(), &byte, 1);
                control_.close(ignored);
                return look_at_child();
            }
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                control_.close(ignored);  // the owner is gone without detaching: nobody will ever stop this sandbox
                end_once();
                return look_at_child();
            }
            if (n < 0 && errno == EAGAIN) {
                wait_control();
                return look_at_child();
            }
        }
        asio::post(io_, [this] { read_control(); });
        look_at_child();
    }

    void wait_signal() {
        signals_.async_wait(Descriptor::wait_read, [this](const boost::system::error_code &ec) {
            if (ec) return;
            signalfd_siginfo info;
            while (::read(s_.signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
            }
            end_once();
            wait_signal();
            look_at_child();
        });
    }

    const Supervision &s_;
    OutputRelay &relay_;
    std::optional<int> status_;
    bool ended_ = false;
    asio::io_context io_{1};
    BorrowedDescriptor exit_, output_, signals_;
    Descriptor control_;
    asio::steady_timer tick_;
    std::shared_ptr<void> services_;  // after io_: ended before it
};

}  // namespace

int supervise(const Supervision &s, OutputRelay &relay) { return Supervisor(s, relay).run(); }

}  // namespace sandbox
