#include "actionhost/common/http/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <list>
#include <optional>
#include <future>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "connection.hpp"
#include "response_head.hpp"
#include "socket_exchange.hpp"
#include "worker_pool.hpp"

namespace actionhost::common::http {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;
using detail::Connection;
using ConnectionPtr = std::shared_ptr<Connection>;

namespace {

size_t default_max_connections() {
    rlimit r{};
    if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 8192;
    return std::clamp<size_t>(static_cast<size_t>(r.rlim_cur) / 2, 32, 8192);
}

void set_cloexec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

// The answer to a request that will not be handled; the connection closes after it.
std::string refusal(int status, const std::string &why) {
    const std::string body = R"({"detail":"Bad Request: )" + why + R"("})";
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
}
// Why a header the parser refused gets which answer: 431 for one too large, 400 for everything else
// (ambiguous framing among them).
std::string refusal_for(const boost::beast::error_code &ec) {
    const std::string why = ec == bhttp::error::bad_content_length      ? "bad or conflicting Content-Length"
                            : ec == bhttp::error::bad_transfer_encoding ? "bad or conflicting Transfer-Encoding"
                            : ec == bhttp::error::header_limit          ? "request header too large"
                                                                        : "malformed request (" + ec.message() + ")";
    return refusal(ec == bhttp::error::header_limit ? 431 : 400, why);
}

// Whether header text the parser took holds obsolete line folding (a line begun with a space or tab
// continues the field before). Beast unfolds it; a proxy in front may instead read the folded line as a
// field of its own ("X-A: b\r\n Content-Length: 33"), and the two would disagree on where the request
// ends. RFC 9112 §5.2 lets a server refuse it instead, as we do. The parser takes a field only with its
// continuation lines, so a fold never straddles two calls.
bool has_obs_fold(std::string_view taken) {
    for (size_t at = taken.find("\r\n"); at != std::string_view::npos; at = taken.find("\r\n", at + 2))
        if (at + 2 < taken.size() && (taken[at + 2] == ' ' || taken[at + 2] == '\t')) return true;
    return false;
}

// Counts the lines of the header under way in bytes as they arrive (the request line, the fields, the
// empty line), up to the empty line that ends it (what follows is a body or the next request), or until
// there are more than `max_lines` (the request is refused then: no need to look further).
void count_header_lines(detail::Connection &c, const char *p, size_t n, size_t max_lines) {
    for (size_t i = 0; i < n && !c.header_ended && c.header_lines <= max_lines; ++i) {
        c.header_tail = c.header_tail << 8 | static_cast<unsigned char>(p[i]);
        if (p[i] != '\n') continue;
        ++c.header_lines;
        c.header_ended = c.header_tail == 0x0D0A0D0Au;  // "\r\n\r\n"
    }
}

// Framing the parser accepts but we refuse: a Transfer-Encoding that does not end in chunked (the body's
// end would be the connection's, which a proxy in front may see otherwise), or one on HTTP/1.0.
bool ambiguous_framing(const detail::RequestParser &p) {
    const auto &m = p.get();
    const auto te = m.find(bhttp::field::transfer_encoding);
    if (te == m.end()) return false;
    return !p.chunked() || m.version() < 11;
}

}  // namespace

// Async handlers hold `this` raw: the event loop thread and every handler thread are joined before the
// Impl goes (Server::stop), and no handler may keep the Impl alive (a cycle through the io_context).
struct Server::Impl {
    Impl(Handler h, ServerSettings s)
        : handler(std::move(h)), settings(std::move(s)), workers(settings.name, settings.max_handlers) {
        if (settings.max_connections == 0) settings.max_connections = default_max_connections();
    }

    Handler handler;
    ServerSettings settings;
    asio::io_context io{1};
    // Keeps the loop running while nothing is pending (after stop_accepting, say) until stop() is done.
    asio::executor_work_guard<asio::io_context::executor_type> keep_running = asio::make_work_guard(io);
    tcp::acceptor acceptor{io};
    asio::steady_timer accept_retry{io};
    std::thread loop;
    detail::WorkerPool workers;
    // Event-loop state (the loop's thread only):
    std::list<ConnectionPtr> waiting;  // connections between requests, the one idle longest first
    std::set<ConnectionPtr> handling;  // connections a handler's thread owns
    bool accepting = true;
    // Read anywhere:
    std::atomic<size_t> open{0};
    std::atomic<uint64_t> shed{0};
    std::atomic<bool> stopped{false};
    std::atomic<bool> accepting_requests{true};  // `accepting`, for the handlers' threads

    void log(const std::string &line) const {
        if (settings.log) settings.log(line);
    }

    void accept() {
        acceptor.async_accept([self = this](const boost::system::error_code &ec, tcp::socket socket) {
            if (!self->accepting) return;
            if (ec) {
                // Out of descriptors (EMFILE/ENFILE) or a transient error: make room, try again shortly.
                if (!self->shed_one()) self->log("accept failed: " + ec.message());
                self->accept_retry.expires_after(std::chrono::milliseconds(20));
                self->accept_retry.async_wait([self](const boost::system::error_code &e) {
                    if (!e && self->accepting) self->accept();
                });
                return;
            }
            self->admit(std::move(socket));
            self->accept();
        });
    }

    void admit(tcp::socket socket) {
        set_cloexec(socket.native_handle());
        if (open >= settings.max_connections && !shed_one()) {
            boost::system::error_code ignored;
            socket.close(ignored);  // every connection is being handled: none to shed
            return;
        }
        boost::system::error_code ec;
        socket.set_option(tcp::no_delay(true), ec);
        auto peer = socket.remote_endpoint(ec);
        auto c = std::make_shared<Connection>(std::move(socket), ec ? tcp::v4() : peer.protocol());
        c->remote = ec ? "" : peer.address().to_string();
        ++open;
        wait_for_request(c);
    }

    // Closes the connection idle the longest (never one being handled). False when there is none.
    bool shed_one() {
        if (waiting.empty()) return false;
        close(waiting.front());
        ++shed;
        return true;
    }

    void close(const ConnectionPtr &c) {
        if (c->closed) return;
        c->closed = true;
        boost::system::error_code ignored;
        c->timer.cancel();
        c->socket.shutdown(tcp::socket::shutdown_both, ignored);
        c->socket.close(ignored);
        if (!c->handling) waiting.erase(c->waiting_at);
        --open;
    }

    void wait_for_request(const ConnectionPtr &c) {
        c->handling = false;
        c->waiting_at = waiting.insert(waiting.end(), c);
        if (c->buffer.size() > 0) return read_header(c);  // the next request is already here (pipelined)
        arm_timer(c, c->served ? settings.idle_timeout : settings.first_request_timeout);
        if (c->buffer.capacity() > 0) {
            // A connection that has carried a request has a buffer: reading into it is Asio's speculative
            // read, registered with epoll only while nothing has arrived, where a wait re-registers the
            // socket (an epoll_ctl) at every request.
            c->socket.async_read_some(c->buffer.prepare(c->buffer.capacity()), [self = this, c](const boost::system::error_code &ec, size_t n) {
                if (c->closed) return;
                c->buffer.commit(n);
                if (ec) return self->close(c);
                self->read_header(c);
            });
            return;
        }
        // A fresh one waits without a buffer: connections that never send hold no memory for it.
        c->socket.async_wait(tcp::socket::wait_read, [self = this, c](const boost::system::error_code &ec) {
            if (c->closed) return;
            if (ec) return self->close(c);
            self->read_header(c);
        });
    }

    // A connection's deadline (idle, header, write) moves at every step of every request; moving a timer
    // costs a timerfd_settime system call each time, three per request. So the deadline is a field, and
    // the timer only wakes at the earliest deadline it may have to enforce: it re-arms itself for a later
    // one when it wakes early, and is moved only when a deadline comes nearer than its wake-up.
    void arm_timer(const ConnectionPtr &c, std::chrono::milliseconds after) {
        c->deadline = std::chrono::steady_clock::now() + after;
        if (c->timer_waiting && c->timer.expiry() <= c->deadline) return;  // it wakes first and looks again
        wait_for_deadline(c);
    }
    // No deadline while a step that has its own bound runs (a handler's thread, say).
    static void disarm_timer(const ConnectionPtr &c) { c->deadline = std::chrono::steady_clock::time_point::max(); }

    void wait_for_deadline(const ConnectionPtr &c) {
        c->timer_waiting = true;
        c->timer.expires_at(c->deadline);  // a wait already pending ends with operation_aborted
        c->timer.async_wait([self = this, c](const boost::system::error_code &ec) {
            if (ec) return;  // moved nearer (a newer wait is pending) or closed
            c->timer_waiting = false;
            if (c->closed || c->handling || c->deadline == std::chrono::steady_clock::time_point::max()) return;
            if (c->deadline > std::chrono::steady_clock::now()) return self->wait_for_deadline(c);
            self->close(c);
        });
    }

    void read_header(const ConnectionPtr &c) {
        // Still last in the idle order only by its last activity: a header begun counts as activity.
        waiting.splice(waiting.end(), waiting, c->waiting_at);
        arm_timer(c, settings.header_timeout);
        begin_header(*c);
        parse_header(c);
    }

    // What the parser made of the bytes buffered so far (feed_header).
    struct HeaderStep {
        enum { complete, need_more, refused } state;
        std::string refusal;  // the answer, when refused
    };

    // Prepares a connection for a new request's header: a fresh parser, its limits, the line count of
    // what is buffered already (pipelined). On whichever thread owns the connection.
    void begin_header(Connection &c) const {
        c.parser.emplace();
        c.parser->header_limit(static_cast<std::uint32_t>(settings.max_header_bytes));
        // Each handler bounds what it reads. (Not boost::none: Beast 1.74 compares the length with the
        // empty optional and refuses every body.)
        c.parser->body_limit(std::numeric_limits<std::uint64_t>::max());
        c.parser->eager(false);  // the parser stops where the header ends (header_done() sets it for the body)
        c.header_bytes = 0;
        c.header_lines = 0;
        c.header_tail = 0;
        c.header_ended = false;
        count_header_lines(c, static_cast<const char *>(c.buffer.data().data()), c.buffer.size(), max_header_lines());
    }

    // Feeds the parser what has arrived. Not Beast's async_read_header: Beast 1.74 checks its header
    // limit against what one parse call sees, and parses fields as they come, so a header whose reads
    // each end a byte or two into a field was never checked (64 MiB of 8-byte fields passed a 64 KiB
    // limit and cost the host 630 MB). Here the bytes the parser takes are counted against the limit as a
    // whole. On whichever thread owns the connection.
    HeaderStep feed_header(Connection &c) const {
        while (c.buffer.size() > 0) {
            // Each field costs the parser ~80 bytes and some work however short it is ("a:" is one), so
            // their number is bounded as well as their size, before the parser sees them: it would build
            // every field of what has arrived first (16 000 in 64 KB took the event loop 3 ms).
            if (c.header_lines > max_header_lines()) return {HeaderStep::refused, refusal_for(bhttp::error::header_limit)};
            boost::beast::error_code ec;
            const size_t used = c.parser->put(c.buffer.data(), ec);
            const std::string_view taken(static_cast<const char *>(c.buffer.data().data()), used);
            if (has_obs_fold(taken)) return {HeaderStep::refused, refusal(400, "obsolete line folding in the header")};
            c.buffer.consume(used);
            c.header_bytes += used;
            if (c.header_bytes > settings.max_header_bytes) return {HeaderStep::refused, refusal_for(bhttp::error::header_limit)};
            if (c.parser->is_header_done()) return {HeaderStep::complete, {}};
            if (ec == bhttp::error::need_more) break;
            if (ec) return {HeaderStep::refused, refusal_for(ec)};
            if (used == 0) break;
        }
        if (c.header_bytes + c.buffer.size() >= settings.max_header_bytes)
            return {HeaderStep::refused, refusal_for(bhttp::error::header_limit)};
        return {HeaderStep::need_more, {}};
    }

    // On the loop: feeds the parser and reads more until the header is complete.
    void parse_header(const ConnectionPtr &c) {
        HeaderStep step = feed_header(*c);
        if (step.state == HeaderStep::complete) return header_done(c);
        if (step.state == HeaderStep::refused) return refuse(c, std::move(step.refusal));
        const size_t room = settings.max_header_bytes - c->header_bytes - c->buffer.size();
        c->socket.async_read_some(c->buffer.prepare(std::min<size_t>(room, 65536)),
                                  [self = this, c](const boost::system::error_code &ec, size_t n) {
                                      if (c->closed) return;
                                      c->buffer.commit(n);
                                      count_header_lines(*c, static_cast<const char *>(c->buffer.data().data()) + c->buffer.size() - n, n,
                                                         self->max_header_lines());
                                      if (!ec) return self->parse_header(c);
                                      disarm_timer(c);
                                      if (ec == asio::error::eof && c->parser->got_some())
                                          return self->refuse(c, refusal_for(bhttp::error::partial_message));
                                      self->close(c);  // the client left between requests
                                  });
    }

    size_t max_header_lines() const { return settings.max_header_fields + 2; }  // + the request line and the empty line

    void header_done(const ConnectionPtr &c) {
        disarm_timer(c);
        c->parser->eager(true);  // the body reader parses as much as each read brings
        if (ambiguous_framing(*c->parser)) return refuse(c, refusal_for(bhttp::error::bad_transfer_encoding));
        if (auto answer = quick_answer_for(*c)) return send_quick_answer(c, *answer);
        hand_over(c);
    }

    // The settings' quick answer to this request, if any: only for one with no body and no upgrade.
    std::optional<QuickAnswer> quick_answer_for(const Connection &c) const {
        if (!settings.quick_answer) return std::nullopt;
        const auto &m = c.parser->get();
        if (c.parser->chunked() || c.parser->content_length().value_or(0) != 0 || m.find(bhttp::field::upgrade) != m.end()) return std::nullopt;
        const auto method = m.method_string(), target = m.target();
        return settings.quick_answer(std::string_view(method.data(), method.size()), std::string_view(target.data(), target.size()));
    }

    // Writes a quick answer from here, the event loop: no handler, no thread hand-off, and an answer even
    // while every handler thread is busy.
    void send_quick_answer(const ConnectionPtr &c, const QuickAnswer &answer) {
        const auto &m = c->parser->get();
        const bool keep = m.keep_alive() && accepting && !stopped;
        auto text = std::make_shared<std::string>(detail::response_head({.status = answer.status,
                                                                          .content_type = answer.content_type,
                                                                          .length = answer.body.size(),
                                                                          .keep_alive = keep,
                                                                          .request_version = m.version()}));
        if (m.method() != bhttp::verb::head) *text += answer.body;
        c->parser.reset();
        arm_timer(c, settings.io_timeout);
        asio::async_write(c->socket, asio::buffer(*text), [self = this, c, text, keep](const boost::system::error_code &ec, size_t) {
            if (c->closed) return;
            disarm_timer(c);
            c->served = true;
            if (ec) return self->close(c);
            if (!keep || !self->accepting) return self->linger(c);
            self->waiting.erase(c->waiting_at);
            self->wait_for_request(c);
        });
    }

    // Answers a request that will not be handled, then closes the connection (its framing cannot be
    // trusted: whatever follows is not read as a request).
    void refuse(const ConnectionPtr &c, std::string response) {
        // Nothing of the request is needed any more: what it holds goes now, not after the linger.
        c->parser.reset();
        c->buffer.clear();
        c->buffer.shrink_to_fit();
        auto text = std::make_shared<std::string>(std::move(response));
        arm_timer(c, kLinger);
        asio::async_write(c->socket, asio::buffer(*text), [self = this, c, text](const boost::system::error_code &ec, size_t) {
            if (c->closed) return;
            if (ec) return self->close(c);
            self->linger(c);
        });
    }

    // Ends a connection after its last response without losing that response: closing a socket with
    // unread input sends a reset, which can destroy the response in the peer's kernel before it is read.
    // So: our side ends (FIN), what the peer still sends is read and dropped until it ends too, at most
    // kLinger and 1 MiB.
    static constexpr std::chrono::milliseconds kLinger{2000};
    void linger(const ConnectionPtr &c) {
        // Nothing more is parsed: what the last request's parser and buffer hold goes now, not after
        // the linger (a client's body of 100 KB kept ~70 KB per lingering connection).
        c->parser.reset();
        c->buffer.clear();
        c->buffer.shrink_to_fit();
        boost::system::error_code ignored;
        c->socket.shutdown(tcp::socket::shutdown_send, ignored);
        arm_timer(c, kLinger);
        drain(c, std::make_shared<std::array<char, 16384>>(), 0);
    }
    void drain(const ConnectionPtr &c, std::shared_ptr<std::array<char, 16384>> sink, size_t total) {
        c->socket.async_read_some(asio::buffer(*sink), [self = this, c, sink, total](const boost::system::error_code &ec, size_t n) {
            if (c->closed) return;
            if (ec || total + n > (1u << 20)) return self->close(c);
            self->drain(c, sink, total + n);
        });
    }

    // A thread only for a connection that can take an answer now. A client that sends request after
    // request and reads no answer (no key needed: each may be a 403) would otherwise, once its socket's
    // buffers are full, keep a handler thread in a write for io_timeout; a few hundred such connections
    // took them all. Until the peer reads, the request waits here like an idle connection: on no thread,
    // sheddable, closed after idle_timeout.
    void hand_over(const ConnectionPtr &c) {
        if (no_room_to_answer(c->fd)) {
            arm_timer(c, settings.idle_timeout);
            c->socket.async_wait(tcp::socket::wait_write, [self = this, c](const boost::system::error_code &ec) {
                if (c->closed) return;
                if (ec) return self->close(c);
                self->hand_over(c);
            });
            return;
        }
        waiting.erase(c->waiting_at);
        c->handling = true;
        c->served = true;
        handling.insert(c);
        workers.submit([self = this, c] { self->serve(c); });
    }

    // On a handler's thread: the request, then — while the client sends its next one at once and no
    // other request waits for a thread — the requests that follow on the same connection.
    void serve(const ConnectionPtr &c) {
        for (;;) {  // each round ends the turn or serves a request the client sent
            if (!serve_one(*c)) return back_to_loop(c, [self = this, c] { self->linger(c); });
            if (workers.jobs_waiting() || !next_header_arrived(*c)) {
                return back_to_loop(c, [self = this, c] {
                    self->waiting.erase(c->waiting_at);  // listed again as it waits
                    self->wait_for_request(c);
                });
            }
            HeaderStep step = feed_header(*c);
            if (step.state == HeaderStep::refused)
                return back_to_loop(c, [self = this, c, why = std::move(step.refusal)]() mutable { self->refuse(c, std::move(why)); });
            if (step.state == HeaderStep::need_more) {
                return back_to_loop(c, [self = this, c] {
                    self->arm_timer(c, self->settings.header_timeout);
                    self->parse_header(c);
                });
            }
            // Framing we refuse, a request with a quick answer, or a client not reading its answers: the
            // loop's own path decides, as for any request.
            if (ambiguous_framing(*c->parser) || quick_answer_for(*c) || no_room_to_answer(c->fd))
                return back_to_loop(c, [self = this, c] { self->header_done(c); });
            c->parser->eager(true);
        }
    }

    // Runs the handler on the request parsed; whether the connection can carry another.
    bool serve_one(Connection &c) {
        detail::SocketExchange exchange(c, settings.io_timeout, settings.max_header_bytes);
        try {
            handler(exchange.request(), exchange.response());
        } catch (const std::exception &e) {
            log(std::string("a handler failed: ") + e.what());
        }
        return exchange.finish() && !stopped;
    }

    // Hands a connection the handler's thread is done with to the loop, which runs `next` with it.
    template <typename Next>
    void back_to_loop(const ConnectionPtr &c, Next next) {
        asio::post(io, [self = this, c, next = std::move(next)]() mutable {
            self->handling.erase(c);
            if (!c->watch_again()) self->close(c);
            if (c->closed) return;
            c->handling = false;
            // Listed again either way: a lingering connection may be shed like an idle one.
            c->waiting_at = self->waiting.insert(self->waiting.end(), c);
            if (!self->accepting) return self->close(c);
            next();
        });
    }

    // A client that sends its next request as soon as it has an answer (an agent's actions back to
    // back, a script's polling) would otherwise cost each request two thread wake-ups and the loop's
    // turn: the loop waking to take the connection back, then to read the request, then a handler's
    // thread waking for it. So the handler's thread waits kNextRequestWait for the next request's header
    // and serves it itself. Only a header complete within that time, on a socket with room for the
    // answer, while the server accepts requests, and never while another connection's request waits for
    // a thread (a few clients sending back to back would otherwise keep every thread of a small pool in
    // turn, the others waiting behind them): anything else goes back to the loop, and an idle
    // connection still holds no thread.
    static constexpr std::chrono::microseconds kNextRequestWait{1000};

    // Waits up to kNextRequestWait for the client's next header, read into the connection's buffer and
    // counted as the loop counts what arrives (begin_header, count_header_lines): true once it is whole,
    // or has more lines than allowed (feed_header refuses it then).
    bool next_header_arrived(Connection &c) {
        if (!accepting_requests) return false;
        begin_header(c);  // counts what is buffered already (pipelined)
        const auto whole = [this, &c] { return c.header_ended || c.header_lines > max_header_lines(); };
        if (c.buffer.size() > 0) return whole();  // pipelined: it is all here, or the loop waits for the rest
        const int fd = c.fd;
        c.stop_watching();  // the request that comes wakes this thread alone
        const auto until = std::chrono::steady_clock::now() + kNextRequestWait;
        for (int round = 0; round < 64; ++round) {  // a header arriving in pieces; EINTR
            const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(until - std::chrono::steady_clock::now());
            if (left.count() <= 0) return false;
            pollfd p{fd, POLLIN, 0};
            const timespec wait{0, static_cast<long>(left.count())};
            const int n = ::ppoll(&p, 1, &wait, nullptr);
            if (n == 0 || (n < 0 && errno != EINTR)) return false;
            if (n < 0) continue;
            if (c.buffer.size() >= settings.max_header_bytes) return false;  // the loop refuses it
            auto space = c.buffer.prepare(settings.max_header_bytes - c.buffer.size());
            const ssize_t got = ::recv(fd, space.data(), space.size(), MSG_DONTWAIT);
            if (got <= 0) return false;  // the client left, or an error: the loop sees it too and closes
            const size_t arrived = static_cast<size_t>(got);
            c.buffer.commit(arrived);
            count_header_lines(c, static_cast<const char *>(c.buffer.data().data()) + c.buffer.size() - arrived, arrived, max_header_lines());
            if (whole()) return accepting_requests;
        }
        return false;
    }

    // Whether a socket's send buffer is full (the peer reads no answers).
    static bool no_room_to_answer(int fd) {
        pollfd room{fd, POLLOUT, 0};
        return ::poll(&room, 1, 0) == 0;
    }

    void stop_accepting_on_loop() {
        if (!accepting) return;
        accepting = false;
        accepting_requests = false;
        boost::system::error_code ignored;
        acceptor.close(ignored);
        accept_retry.cancel();
        while (!waiting.empty()) close(waiting.front());
    }
};

Server::Server(const std::string &host, uint16_t port, Handler handler, ServerSettings settings)
    : impl_(std::make_shared<Impl>(std::move(handler), std::move(settings))) {
    const std::string where = host + ":" + std::to_string(port);
    try {
        tcp::resolver resolver(impl_->io);
        const auto found = resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service);
        if (found.empty()) throw std::runtime_error("no address");
        const tcp::endpoint endpoint = found.begin()->endpoint();
        impl_->acceptor.open(endpoint.protocol());
        set_cloexec(impl_->acceptor.native_handle());
        // SO_REUSEADDR so a restart can rebind at once; never SO_REUSEPORT, which would let two servers
        // share the port and answer each other's clients.
        impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
        impl_->acceptor.bind(endpoint);
        impl_->acceptor.listen(1024);
    } catch (const std::exception &e) {
        throw std::runtime_error("cannot listen on " + where + ": " + e.what());
    }
}

Server::~Server() { stop(); }

uint16_t Server::port() const {
    boost::system::error_code ec;
    const auto endpoint = impl_->acceptor.local_endpoint(ec);
    return ec ? 0 : endpoint.port();
}

void Server::start() {
    impl_->accept();
    impl_->loop = std::thread([impl = impl_.get()] {
        pthread_setname_np(pthread_self(), (impl->settings.name + "-io").substr(0, 15).c_str());
        for (int round = 0; round < 1'000'000'000; ++round) {
            try {
                impl->io.run();
                return;
            } catch (const std::exception &e) {
                impl->log(std::string("event loop: ") + e.what());  // one connection's failure, not the server's
            }
        }
    });
}

void Server::stop_accepting() {
    asio::post(impl_->io, [impl = impl_.get()] { impl->stop_accepting_on_loop(); });
}

void Server::stop() {
    if (impl_->stopped.exchange(true)) return;
    if (!impl_->loop.joinable()) {  // never started: nothing runs
        impl_->stop_accepting_on_loop();
        return;
    }
    // Each step on the loop is waited for: io.stop() would otherwise end the loop before it ran them.
    std::promise<void> closed;
    asio::post(impl_->io, [impl = impl_.get(), &closed] {
        impl->stop_accepting_on_loop();
        // A handler blocked on its peer wakes with an error; its descriptor stays open until it is done.
        for (const auto &c : impl->handling) ::shutdown(c->fd, SHUT_RDWR);
        closed.set_value();
    });
    closed.get_future().wait();
    impl_->workers.join();
    std::promise<void> settled;  // after what the handlers posted as they ended
    asio::post(impl_->io, [&settled] { settled.set_value(); });
    settled.get_future().wait();
    impl_->keep_running.reset();
    impl_->io.stop();
    impl_->loop.join();
}

size_t Server::open_connections() const { return impl_->open; }
uint64_t Server::shed_connections() const { return impl_->shed; }

}  // namespace actionhost::common::http
