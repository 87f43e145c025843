#include "forwarder.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>

#include <actionhost/common/net/accept_later.hpp>
#include <actionhost/common/net/byte_relay.hpp>

#include <array>
#include <charconv>
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
    asio::streambuf header{8};  // ports socket: "PORT\n" (at most 6 bytes), then the client's first bytes
};

// "8000\n" → 8000; 0 for anything else.
int parse_port_line(const std::string &line) {
    int port = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), port);
    if (ec != std::errc() || end != line.data() + line.size() || line.size() > 5 || port < 1 || port > 65535) return 0;
    return port;
}

class Loop {
  public:
    Loop(int listen_fd, int port, int ports_fd) : port_(port), signals_(io_), tick_(io_), acceptor_(io_), ports_acceptor_(io_) {
        if (listen_fd >= 0) acceptor_.assign(Local(), listen_fd);
        if (ports_fd >= 0) ports_acceptor_.assign(Local(), ports_fd);
    }

    int run(pid_t main_child) {
        main_child_ = main_child;
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        signals_.assign(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
        if (acceptor_.is_open()) accept_next();
        if (ports_acceptor_.is_open()) accept_published();
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
            if (ec == asio::error::operation_aborted) return;
            if (ec) return actionhost::common::net::accept_later(io_, [this] { accept_next(); });
            relay_to_host(pair);
            accept_next();
        });
    }

    // A published port's connection: its port line first, then the same relay. A bad line closes it.
    void accept_published() {
        auto pair = std::make_shared<Pair>(io_);
        ports_acceptor_.async_accept(pair->client, [this, pair](const boost::system::error_code &ec) {
            if (ec == asio::error::operation_aborted) return;
            if (ec) return actionhost::common::net::accept_later(io_, [this] { accept_published(); });
            asio::async_read_until(pair->client, pair->header, '\n', [this, pair](const boost::system::error_code &e, size_t n) {
                if (e) return;
                std::string line(asio::buffers_begin(pair->header.data()), asio::buffers_begin(pair->header.data()) + n - 1);
                pair->header.consume(n);
                const int port = parse_port_line(line);
                if (port == 0) return;
                std::string first(asio::buffers_begin(pair->header.data()), asio::buffers_end(pair->header.data()));
                connect_published(pair, port, std::move(first));
            });
            accept_published();
        });
    }

    // The host's own port: a listener of ours with a deep backlog, so a loopback connect succeeds or fails
    // at once and is made here without a turn of the loop.
    void relay_to_host(const std::shared_ptr<Pair> &pair) {
        boost::system::error_code ec;
        pair->host.connect(tcp::endpoint(asio::ip::address_v4::loopback(), static_cast<unsigned short>(port_)), ec);
        if (ec) return;  // the client's end closes with `pair`: it sees a host that went away
        start_relay(pair, {});
    }

    // A published port's server is the sandbox's: its backlog may be full or never drained, and a
    // connect to it would then wait for SYN retries. Made without waiting here (the loop also serves the
    // host's socket and reaps): 127.0.0.1 first, then ::1 for a server that listens there only — never
    // for the host's own port, which another user of the sandbox could take on ::1 while the host is
    // down and so receive what a browser sends the web view. The client's end closes with `pair` when
    // nothing answers.
    void connect_published(const std::shared_ptr<Pair> &pair, int port, std::string first, bool v6 = false) {
        const auto address = v6 ? asio::ip::address(asio::ip::address_v6::loopback()) : asio::ip::address(asio::ip::address_v4::loopback());
        pair->host.async_connect(tcp::endpoint(address, static_cast<unsigned short>(port)),
                                 [this, pair, port, first = std::move(first), v6](const boost::system::error_code &ec) mutable {
                                     if (!ec) return start_relay(pair, std::move(first));
                                     boost::system::error_code ignored;
                                     pair->host.close(ignored);
                                     if (!v6 && port != port_ && ec != asio::error::operation_aborted)
                                         connect_published(pair, port, std::move(first), true);
                                 });
    }

    void start_relay(const std::shared_ptr<Pair> &pair, std::string first) {
        boost::system::error_code ec;
        pair->host.set_option(tcp::no_delay(true), ec);
        actionhost::common::net::start_byte_relay(pair->client, pair->host, std::move(first), {}, [pair] {});
    }

    int port_;
    pid_t main_child_ = -1;
    std::optional<int> status_;
    asio::io_context io_{1};
    asio::posix::stream_descriptor signals_;
    asio::steady_timer tick_;
    Local::acceptor acceptor_, ports_acceptor_;
};

}  // namespace

int run_event_loop(pid_t main_child, int listen_fd, int port, int ports_fd) { return Loop(listen_fd, port, ports_fd).run(main_child); }

}  // namespace sandbox
