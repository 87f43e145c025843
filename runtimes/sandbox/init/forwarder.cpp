#include "forwarder.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <actionhost/common/net/byte_relay.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <optional>

namespace sandbox {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using Local = asio::local::stream_protocol;

// One relayed connection: the client's end (the unix socket outside) and the host's (TCP inside). Kept
// alive by its relay, closed when the relay ends.
struct Pair {
    explicit Pair(asio::io_context &io) : client(io), host(io) {}
    Local::socket client;
    tcp::socket host;
};

class Loop {
  public:
    Loop(int listen_fd, int port) : port_(port), signals_(io_), tick_(io_), acceptor_(io_) {
        if (listen_fd >= 0) acceptor_.assign(Local(), listen_fd);
    }

    int run(pid_t main_child) {
        main_child_ = main_child;
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        signals_.assign(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
        if (acceptor_.is_open()) accept_next();
        if (reap()) return *status_;
        wait_signal();
        wait_tick();
        io_.run();
        return status_ ? *status_ : 1 << 8;
    }

  private:
    // Reaps every child that ended (orphans land on pid 1); true once the main child is among them.
    bool reap() {
        for (int i = 0; i < 100000 && !status_; ++i) {
            int status = 0;
            const pid_t p = ::waitpid(-1, &status, WNOHANG);
            if (p <= 0) break;
            if (p == main_child_) status_ = status;
        }
        if (status_) io_.stop();
        return status_.has_value();
    }

    void wait_signal() {
        signals_.async_wait(asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code &ec) {
            if (ec) return;
            signalfd_siginfo info;
            while (::read(signals_.native_handle(), &info, sizeof info) > 0) {
            }
            if (!reap()) wait_signal();
        });
    }

    // Reaps once a second too, as a SIGCHLD merged into one already read would otherwise wait.
    void wait_tick() {
        tick_.expires_after(std::chrono::seconds(1));
        tick_.async_wait([this](const boost::system::error_code &ec) {
            if (ec) return;
            if (!reap()) wait_tick();
        });
    }

    void accept_next() {
        auto pair = std::make_shared<Pair>(io_);
        acceptor_.async_accept(pair->client, [this, pair](const boost::system::error_code &ec) {
            if (!ec) relay(pair);
            accept_next();
        });
    }

    void relay(const std::shared_ptr<Pair> &pair) {
        boost::system::error_code ec;
        pair->host.connect(tcp::endpoint(asio::ip::address_v4::loopback(), static_cast<unsigned short>(port_)), ec);  // loopback: immediate
        if (ec) return;  // the client's end closes with `pair`: it sees a host that went away
        pair->host.set_option(tcp::no_delay(true), ec);
        actionhost::common::net::start_byte_relay(pair->client, pair->host, {}, {}, [pair] {});
    }

    int port_;
    pid_t main_child_ = -1;
    std::optional<int> status_;
    asio::io_context io_{1};
    asio::posix::stream_descriptor signals_;
    asio::steady_timer tick_;
    Local::acceptor acceptor_;
};

}  // namespace

int run_event_loop(pid_t main_child, int listen_fd, int port) { return Loop(listen_fd, port).run(main_child); }

}  // namespace sandbox
