#include "forwarder.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace sandbox {

namespace {

int connect_host(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0) {  // loopback: immediate
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

// One direction of a relayed connection.
struct Flow {
    int from, to;
    std::string pending;  // read from `from`, not yet written to `to`
    bool eof = false;     // `from` reached end of stream
    bool shut = false;    // shutdown(to, SHUT_WR) done
};

struct Connection {
    int client, host;
    Flow up, down;  // client→host, host→client
    bool client_watched = true, host_watched = true;  // in the epoll set
    Connection(int c, int h) : client(c), host(h), up{c, h, {}, false, false}, down{h, c, {}, false, false} {}
};

class Loop {
  public:
    Loop(int listen_fd, int port) : listen_fd_(listen_fd), port_(port) {}

    int run(pid_t main_child) {
        ep_ = epoll_create1(EPOLL_CLOEXEC);
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sig_fd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        add(sig_fd_, EPOLLIN);
        if (listen_fd_ >= 0) {
            fcntl(listen_fd_, F_SETFL, fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
            add(listen_fd_, EPOLLIN);
        }
        epoll_event events[64];
        for (;;) {
            if (auto status = reap(main_child)) return *status;
            int n = epoll_wait(ep_, events, 64, 1000);
            if (n < 0 && errno != EINTR) return 1 << 8;
            for (int i = 0; i < n; ++i) {
                int fd = events[i].data.fd;
                if (fd == sig_fd_) {
                    signalfd_siginfo info;
                    while (read(sig_fd_, &info, sizeof info) > 0) {
                    }
                } else if (fd == listen_fd_) {
                    accept_all();
                } else {
                    service(fd, events[i].events);
                }
            }
        }
    }

  private:
    std::optional<int> reap(pid_t main_child) {
        for (int i = 0; i < 100000; ++i) {
            int status = 0;
            pid_t p = waitpid(-1, &status, WNOHANG);
            if (p <= 0) return std::nullopt;
            if (p == main_child) return status;
        }
        return std::nullopt;
    }

    void add(int fd, uint32_t ev) {
        epoll_event e{};
        e.events = ev;
        e.data.fd = fd;
        epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &e);
    }

    void accept_all() {
        for (int i = 0; i < 1000; ++i) {
            int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (client < 0) return;
            int host = connect_host(port_);
            if (host < 0) {
                close(client);  // the client sees a closed connection, as with a host that went away
                continue;
            }
            auto conn = std::make_shared<Connection>(client, host);
            by_fd_[client] = conn;
            by_fd_[host] = conn;
            add(client, EPOLLIN);
            add(host, EPOLLIN);
        }
    }

    // Moves what can move without blocking; false when the connection is broken.
    static bool pump(Flow &f) {
        char buf[65536];
        for (int i = 0; i < 64; ++i) {
            if (!f.pending.empty()) {
                ssize_t w = write(f.to, f.pending.data(), f.pending.size());
                if (w < 0) return errno == EAGAIN || errno == EINTR;
                f.pending.erase(0, static_cast<size_t>(w));
                if (!f.pending.empty()) return true;
            }
            if (f.eof) break;
            ssize_t n = read(f.from, buf, sizeof buf);
            if (n < 0) {
                if (errno == EAGAIN || errno == EINTR) return true;
                return false;
            }
            if (n == 0) {
                f.eof = true;
                break;
            }
            f.pending.assign(buf, static_cast<size_t>(n));
        }
        if (f.eof && f.pending.empty() && !f.shut) {
            shutdown(f.to, SHUT_WR);
            f.shut = true;
        }
        return true;
    }

    void service(int fd, uint32_t events) {
        auto it = by_fd_.find(fd);
        if (it == by_fd_.end()) return;
        auto conn = it->second;
        // A client that hung up entirely (not a half-close) can take nothing more: the relay ends.
        const bool client_gone = fd == conn->client && (events & EPOLLHUP);
        bool ok = !(events & EPOLLERR) && !client_gone && pump(conn->up) && pump(conn->down);
        bool done = conn->up.shut && conn->down.shut;
        if (!ok || done) {
            drop(*conn);
            return;
        }
        // Interest: read a side only when its flow has nothing pending; write when something is.
        auto mask = [](const Flow &reading, const Flow &writing) {
            uint32_t m = 0;
            if (reading.pending.empty() && !reading.eof) m |= EPOLLIN;
            if (!writing.pending.empty()) m |= EPOLLOUT;
            return m;
        };
        watch(conn->client, mask(conn->up, conn->down), conn->client_watched);
        watch(conn->host, mask(conn->down, conn->up), conn->host_watched);
    }

    // A descriptor with no interest leaves the epoll set: epoll reports EPOLLHUP whatever the mask, so a
    // hung-up peer left in it with mask 0 would wake the loop at once, forever (a busy pid 1).
    void watch(int fd, uint32_t mask, bool &watched) {
        epoll_event e{};
        e.events = mask;
        e.data.fd = fd;
        if (mask == 0) {
            if (watched) epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
            watched = false;
        } else {
            epoll_ctl(ep_, watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &e);
            watched = true;
        }
    }

    void drop(Connection &c) {
        for (int fd : {c.client, c.host}) {
            epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);  // ENOENT for an unwatched one: harmless
            close(fd);
            by_fd_.erase(fd);
        }
    }

    int listen_fd_, port_;
    int ep_ = -1, sig_fd_ = -1;
    std::map<int, std::shared_ptr<Connection>> by_fd_;
};

}  // namespace

int run_event_loop(pid_t main_child, int listen_fd, int port) { return Loop(listen_fd, port).run(main_child); }

}  // namespace sandbox
