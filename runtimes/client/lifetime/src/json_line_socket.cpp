#include "actionhost/lifetime/json_line_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/net/accept_later.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace actionhost::lifetime {

namespace asio = boost::asio;
using Local = asio::local::stream_protocol;
using nlohmann::json;

namespace {

constexpr size_t kMaxRequest = 4096;

// A socket address for `path`. The state directory a keeper's socket lives in may be deeper than the
// 107 bytes of sun_path: then the directory is opened and the address goes through its descriptor
// (/proc/self/fd/N/name), which the kernel resolves as the path itself.
struct UnixAddress {
    sockaddr_un addr{};
    int dir_fd = -1;
    explicit UnixAddress(const std::string &path) {
        addr.sun_family = AF_UNIX;
        std::string usable = path;
        if (path.size() >= sizeof addr.sun_path) {
            const size_t slash = path.rfind('/');
            const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
            dir_fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
            if (dir_fd < 0) throw std::runtime_error("cannot open " + dir + ": " + std::strerror(errno));
            usable = "/proc/self/fd/" + std::to_string(dir_fd) + "/" + path.substr(slash + 1);
            if (usable.size() >= sizeof addr.sun_path) throw std::runtime_error("the socket's name is too long: " + path);
        }
        std::memcpy(addr.sun_path, usable.c_str(), usable.size() + 1);
    }
    ~UnixAddress() {
        if (dir_fd >= 0) ::close(dir_fd);
    }
    UnixAddress(const UnixAddress &) = delete;
    UnixAddress &operator=(const UnixAddress &) = delete;
    const sockaddr *get() const { return reinterpret_cast<const sockaddr *>(&addr); }
};

// The caller's own uid or the machine's root: nobody else, whatever the socket's mode.
bool trusted_peer(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
    return cred.uid == 0 || cred.uid == geteuid();
}

struct Exchange {
    explicit Exchange(asio::io_context &io) : socket(io), deadline(io), request(kMaxRequest) {}
    Local::socket socket;
    asio::steady_timer deadline;
    asio::streambuf request;
    std::string reply;
};

}  // namespace

int listen_unix_socket(const std::string &path) {
    const UnixAddress address(path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    ::unlink(path.c_str());
    // Made 0600 from its first moment: no window in which another user could connect.
    const mode_t old = ::umask(0177);
    const int bound = ::bind(fd, address.get(), sizeof address.addr);
    const int bind_errno = errno;
    ::umask(old);
    if (bound != 0 || ::listen(fd, 16) != 0) {
        const std::string why = std::strerror(bound != 0 ? bind_errno : errno);
        ::close(fd);
        throw std::runtime_error("cannot listen on " + path + ": " + why);
    }
    return fd;
}

json answer_safely(const std::function<json()> &fn) {
    try {
        return fn();
    } catch (const std::invalid_argument &e) {  // the request itself: nothing to extend, say
        return {{"ok", false}, {"error", e.what()}, {"invalid", true}};
    } catch (const std::exception &e) {  // the machine: a port taken, not ours to bind
        return {{"ok", false}, {"error", e.what()}};
    }
}

struct JsonLineServer::Impl {
    Impl(asio::io_context &io, int listen_fd, Answer answer) : io(io), acceptor(io), answer(std::move(answer)) {
        acceptor.assign(Local(), listen_fd);
    }

    void accept_next() {
        auto x = std::make_shared<Exchange>(io);
        acceptor.async_accept(x->socket, [this, x](const boost::system::error_code &ec) {
            if (ec == asio::error::operation_aborted) return;
            if (ec) return actionhost::common::net::accept_later(io, [this] { accept_next(); });
            if (trusted_peer(x->socket.native_handle())) serve(x);
            accept_next();
        });
    }

    void serve(const std::shared_ptr<Exchange> &x) {
        x->deadline.expires_after(std::chrono::seconds(5));
        x->deadline.async_wait([x](const boost::system::error_code &ec) {
            boost::system::error_code ignored;
            if (!ec) x->socket.close(ignored);
        });
        asio::async_read_until(x->socket, x->request, '\n', [this, x](const boost::system::error_code &ec, size_t n) {
            if (ec) {
                x->deadline.cancel();
                return;
            }
            const std::string line(asio::buffers_begin(x->request.data()), asio::buffers_begin(x->request.data()) + n);
            json reply;
            auto parsed = actionhost::common::parse_json(line);
            if (!parsed || !parsed.value().is_object()) reply = json{{"ok", false}, {"error", "the request is not a JSON object"}};
            else reply = answer_safely([&] { return answer(parsed.value()); });
            x->reply = actionhost::common::dump_json(reply) + "\n";
            asio::async_write(x->socket, asio::buffer(x->reply), [x](const boost::system::error_code &, size_t) {
                x->deadline.cancel();
                boost::system::error_code ignored;
                x->socket.close(ignored);
            });
        });
    }

    asio::io_context &io;
    Local::acceptor acceptor;
    Answer answer;
};

JsonLineServer::JsonLineServer(asio::io_context &io, int listen_fd, Answer answer)
    : impl_(std::make_unique<Impl>(io, listen_fd, std::move(answer))) {
    impl_->accept_next();
}

JsonLineServer::~JsonLineServer() = default;

json json_line_request(const std::string &path, const json &request, double timeout_s, const std::string &who,
                       const std::string &unreachable) {
    asio::io_context io;
    Local::socket socket(io);
    {
        const UnixAddress address(path);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
        if (::connect(fd, address.get(), sizeof address.addr) != 0) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            throw std::runtime_error(who + " cannot be asked (" + why + ")" + (unreachable.empty() ? "" : ": " + unreachable));
        }
        socket.assign(Local(), fd);
    }
    const std::string line = common::dump_json(request) + "\n";
    asio::streambuf answer(64 * 1024);
    boost::system::error_code failure = asio::error::timed_out;
    asio::async_write(socket, asio::buffer(line), [&](const boost::system::error_code &e, size_t) {
        if (e) {
            failure = e;
            return;
        }
        asio::async_read_until(socket, answer, '\n', [&](const boost::system::error_code &r, size_t) { failure = r; });
    });
    io.run_for(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s)));
    if (failure) throw std::runtime_error(who + " did not answer its control request: " + failure.message());
    const std::string text(asio::buffers_begin(answer.data()), asio::buffers_end(answer.data()));
    auto parsed = common::parse_json(text);
    if (!parsed || !parsed.value().is_object()) throw std::runtime_error(who + " answered its control request with something not JSON");
    const json &reply = parsed.value();
    if (!reply.value("ok", false)) {
        const std::string why = reply.value("error", who + " refused the request");
        if (reply.value("invalid", false)) throw std::invalid_argument(why);
        throw std::runtime_error(why);
    }
    return reply;
}

}  // namespace actionhost::lifetime
