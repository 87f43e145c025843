#include "socket_exchange.hpp"
#include "response_head.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <array>
#include <cctype>
#include <functional>
#include <cstdio>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "actionhost/common/http/upgraded_connection.hpp"
#include "actionhost/common/http/websocket.hpp"
#include "blocking_socket.hpp"

namespace actionhost::common::http::detail {

namespace bhttp = boost::beast::http;

namespace {

// What is left of a request body after its handler returned is read and dropped up to this much, so the
// connection can carry the next request; beyond it the connection is closed instead.
constexpr size_t kDrainCap = 8u << 20;

const char kGenericError[] = R"({"detail":"An unexpected error occurred. Please try again later."})";

// Feeds the parser from the bytes read ahead and then from the socket, into the caller's buffer.
class BodyReader {
  public:
    BodyReader(Connection &c, BlockingSocket &socket, size_t max_framing_bytes)
        : c_(c), socket_(socket), max_framing_bytes_(max_framing_bytes) {}

    // Up to `size` bytes of the body; 0 at its end. Throws std::runtime_error when the body is broken
    // (peer gone or silent past the timeout, bad chunk framing, a chunk-size line or trailer section
    // longer than `max_framing_bytes`).
    size_t read(char *out, size_t size) {
        RequestParser &p = *c_.parser;
        if (p.is_done() || size == 0) return 0;
        if (before_first_read_) {
            auto first = std::move(before_first_read_);
            before_first_read_ = nullptr;
            first();
        }
        auto &body = p.get().body();
        body.data = out;
        body.size = size;
        for (int round = 0; round < 10'000'000; ++round) {
            if (c_.buffer.size() > 0) {
                boost::beast::error_code ec;
                const size_t used = p.put(c_.buffer.data(), ec);
                c_.buffer.consume(used);
                const size_t got = size - body.size;
                if (ec == bhttp::error::need_buffer) ec = {};  // `out` is full
                if (ec && ec != bhttp::error::need_more) throw std::runtime_error("bad request body: " + ec.message());
                if (got > 0 || p.is_done()) {
                    body.data = nullptr;
                    return got;
                }
                if (used > 0 && !ec) continue;  // framing parsed (a chunk's size line): on with the data
            }
            // What the parser has not taken is one piece of framing it waits to see whole (a chunk-size
            // line, the trailers); Beast 1.74 bounds neither, and a handler's body limit never sees them.
            if (c_.buffer.size() >= max_framing_bytes_)
                throw std::runtime_error("a chunk-size line or trailer section is longer than " + std::to_string(max_framing_bytes_) + " bytes");
            auto space = c_.buffer.prepare(65536);
            const ssize_t n = socket_.read_some(static_cast<char *>(space.data()), space.size());
            if (n <= 0) throw std::runtime_error(n == 0 ? "the client ended the request body early" : "the request body stopped arriving");
            c_.buffer.commit(static_cast<size_t>(n));
        }
        throw std::runtime_error("bad request body");
    }

    void on_first_read(std::function<void()> f) { before_first_read_ = std::move(f); }
    bool started() const { return !before_first_read_; }

  private:
    Connection &c_;
    BlockingSocket &socket_;
    size_t max_framing_bytes_;
    std::function<void()> before_first_read_;
};

class BodyBuf : public std::streambuf {
  public:
    explicit BodyBuf(BodyReader &reader) : reader_(reader) {}

  protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const size_t n = reader_.read(buffer_.data(), buffer_.size());  // throws: the istream sets badbit
        if (n == 0) return traits_type::eof();
        setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
        return traits_type::to_int_type(*gptr());
    }

  private:
    BodyReader &reader_;
    std::array<char, 65536> buffer_;
};

class SocketRequest : public Request {
  public:
    SocketRequest(Connection &c, BodyReader &reader)
        : c_(c), method_(c.parser->get().method_string()), target_(c.parser->get().target()), buf_(reader), body_(&buf_) {}

    const std::string &method() const override { return method_; }
    const std::string &target() const override { return target_; }
    std::string header(std::string_view name, std::string_view fallback) const override {
        const auto &fields = c_.parser->get();
        auto it = fields.find(boost::beast::string_view(name.data(), name.size()));
        return it == fields.end() ? std::string(fallback) : std::string(it->value());
    }
    HeaderList headers() const override {
        HeaderList out;
        for (const auto &f : c_.parser->get()) out.emplace_back(std::string(f.name_string()), std::string(f.value()));
        return out;
    }
    const std::string &remote_address() const override { return c_.remote; }
    std::optional<uint64_t> content_length() const override {
        auto n = c_.parser->content_length();
        if (c_.parser->chunked()) return std::nullopt;
        return n ? std::optional<uint64_t>(*n) : std::optional<uint64_t>(0);
    }
    std::istream &body() override { return body_; }

  private:
    Connection &c_;
    std::string method_, target_;
    BodyBuf buf_;
    std::istream body_;
};

// The body of a streamed response: chunks of what was written, sent at each flush.
class ChunkBuf : public std::streambuf {
  public:
    ChunkBuf(BlockingSocket &socket) : socket_(socket) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
    void start(bool chunked, bool discard) {
        chunked_ = chunked;
        discard_ = discard;
    }
    bool finish() {
        if (sync() != 0) return false;
        return !chunked_ || discard_ || socket_.write_all("0\r\n\r\n");
    }

  protected:
    int_type overflow(int_type ch) override {
        if (sync() != 0) return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    int sync() override {
        const size_t n = static_cast<size_t>(pptr() - pbase());
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        if (n == 0 || discard_) return socket_.broken() ? -1 : 0;
        std::string out;
        if (chunked_) {
            char size_line[24];
            std::snprintf(size_line, sizeof size_line, "%zx\r\n", n);
            out.reserve(n + 32);
            out += size_line;
            out.append(buffer_.data(), n);
            out += "\r\n";
        } else {
            out.assign(buffer_.data(), n);
        }
        return socket_.write_all(out) ? 0 : -1;
    }

  private:
    BlockingSocket &socket_;
    std::array<char, 16384> buffer_;
    bool chunked_ = true, discard_ = false;
};

class SocketResponse : public Response {
  public:
    SocketResponse(Connection &c, BlockingSocket &socket)
        : c_(c), socket_(socket), head_only_(c.parser->get().method() == bhttp::verb::head), chunks_(socket), stream_(&chunks_) {}

    bool set_header(std::string_view name, std::string_view value) override {
        if (sent_ || !valid_header(name, value)) return false;
        headers_ += std::string(name) + ": " + std::string(value) + "\r\n";
        return true;
    }
    void close_connection() override { close_ = true; }
    void send(int status, std::string_view content_type, std::string_view body) override {
        if (sent_) return;
        sent_ = true;
        std::string out = head(status, content_type, body.size());
        if (!head_only_) out += body;
        socket_.write_all(out);
    }
    void send_file(int status, std::string_view content_type, const std::string &path) override {
        if (sent_) return;
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st{};
        if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            if (fd >= 0) ::close(fd);
            throw std::runtime_error("cannot send " + path);
        }
        sent_ = true;
        if (socket_.write_all(head(status, content_type, static_cast<uint64_t>(st.st_size))) && !head_only_)
            socket_.write_file(fd, static_cast<size_t>(st.st_size));
        ::close(fd);
    }
    std::ostream &begin_stream(int status, std::string_view content_type) override {
        if (sent_) return stream_;
        sent_ = true;
        streaming_ = true;
        // HTTP/1.0 has no chunks: the body then ends with the connection.
        const bool chunked = c_.parser->get().version() >= 11;
        if (!chunked) close_ = true;
        chunks_.start(chunked, head_only_);
        if (!socket_.write_all(head(status, content_type, std::nullopt, chunked))) stream_.setstate(std::ios::badbit);
        return stream_;
    }
    std::ostream &begin_stream(int status, std::string_view content_type, uint64_t content_length) override {
        if (sent_) return stream_;
        sent_ = true;
        streaming_ = true;
        chunks_.start(false, head_only_);
        if (!socket_.write_all(head(status, content_type, content_length))) stream_.setstate(std::ios::badbit);
        return stream_;
    }
    bool sent() const override { return sent_; }

    std::unique_ptr<UpgradedConnection> upgrade(int status, boost::asio::io_context &io) override {
        if (sent_) return nullptr;
        // A descriptor of its own on the handler's loop, as for a WebSocket (accept_websocket).
        const int fd = ::fcntl(c_.fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) return nullptr;
        c_.stop_watching();  // the file is shared: the server's loop would wake for each byte relayed too
        sockaddr_storage local{};
        socklen_t length = sizeof local;
        auto taken = std::make_unique<UpgradedConnection>(io);
        boost::system::error_code ec;
        if (::getsockname(fd, reinterpret_cast<sockaddr *>(&local), &length) == 0)
            taken->socket.assign(local.ss_family == AF_INET6 ? boost::asio::ip::tcp::v6() : boost::asio::ip::tcp::v4(), fd, ec);
        if (!taken->socket.is_open()) {
            ::close(fd);
            return nullptr;
        }
        sent_ = true;
        close_ = true;
        // The status line and the handler's headers only: the upgraded protocol's answer is the handler's.
        if (!socket_.write_all("HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) + "\r\n" + headers_ + "\r\n"))
            return nullptr;
        taken->early_bytes = boost::beast::buffers_to_string(c_.buffer.data());
        c_.buffer.consume(c_.buffer.size());
        return taken;
    }

    std::unique_ptr<WebSocket> accept_websocket(const WebSocketLimits &limits) override {
        namespace ws = boost::beast::websocket;
        // A client may send frames only after the 101: bytes already here are no part of a conversation.
        if (sent_ || !ws::is_upgrade(c_.parser->get()) || c_.buffer.size() > 0) return nullptr;
        sockaddr_storage local{};
        socklen_t length = sizeof local;
        if (::getsockname(c_.fd, reinterpret_cast<sockaddr *>(&local), &length) != 0) return nullptr;
        // A descriptor of its own for the WebSocket's event loop: the server's loop keeps (and later
        // closes) the connection's, and stops watching it while the handler runs (a registration is on
        // the file, which the two descriptors share: each frame would wake the server's loop too).
        const int fd = ::fcntl(c_.fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) return nullptr;
        c_.stop_watching();
        auto socket = std::make_unique<WebSocket>();
        boost::system::error_code ec;
        socket->stream.next_layer().assign(local.ss_family == AF_INET6 ? boost::asio::ip::tcp::v6() : boost::asio::ip::tcp::v4(), fd, ec);
        if (ec) {
            ::close(fd);
            return nullptr;
        }
        sent_ = true;
        close_ = true;
        ws::stream_base::timeout timeouts{};
        timeouts.handshake_timeout = limits.handshake_timeout;
        timeouts.idle_timeout = limits.idle_timeout;
        timeouts.keep_alive_pings = true;
        socket->stream.set_option(timeouts);
        socket->stream.read_message_max(limits.max_message_bytes);
        bool accepted = false;
        socket->stream.async_accept(c_.parser->get(), [&accepted](const boost::system::error_code &e) { accepted = !e; });
        socket->io.run();
        socket->io.restart();
        if (!accepted) return nullptr;  // Beast answered a bad upgrade with 400 itself, or the peer left
        return socket;
    }

    void send_continue() {
        if (!sent_) socket_.write_all("HTTP/1.1 100 Continue\r\n\r\n");
    }
    bool finish_stream() { return !streaming_ || chunks_.finish(); }
    bool keeps_connection() const { return !close_ && c_.parser->get().keep_alive() && rest_of_body_arrived(); }

  private:
    // Whether what the handler has not read of the request body is all here already (finish() drains
    // only that, never waiting): otherwise the connection ends after the answer. A chunked body's end is
    // known only by reading it.
    bool rest_of_body_arrived() const {
        const RequestParser &p = *c_.parser;
        if (p.is_done()) return true;
        if (p.chunked()) return false;
        const auto left = p.content_length_remaining();
        return left && *left <= c_.buffer.size();
    }

    std::string head(int status, std::string_view content_type, std::optional<uint64_t> length, bool chunked = false) {
        const bool keep = keeps_connection();
        if (!keep) close_ = true;  // said once, kept to, whatever the handler reads afterwards
        return response_head({.status = status, .content_type = content_type, .length = length, .chunked = chunked,
                              .extra_headers = headers_, .keep_alive = keep, .request_version = c_.parser->get().version()});
    }

    Connection &c_;
    BlockingSocket &socket_;
    bool head_only_;
    std::string headers_;
    bool sent_ = false, close_ = false, streaming_ = false;
    ChunkBuf chunks_;
    std::ostream stream_;
};

}  // namespace

struct SocketExchange::Impl {
    Impl(Connection &c, std::chrono::milliseconds io_timeout, size_t max_framing_bytes)
        : connection(c), socket(c.fd, io_timeout), reader(c, socket, max_framing_bytes), request(c, reader),
          response(c, socket) {
        const std::string expect = request.header("Expect", {});
        if (boost::beast::iequals(expect, "100-continue")) reader.on_first_read([this] { response.send_continue(); });
        // Otherwise started() is true from the start: there is no 100 Continue to wait for.
    }
    Connection &connection;
    BlockingSocket socket;
    BodyReader reader;
    SocketRequest request;
    SocketResponse response;
};

SocketExchange::SocketExchange(Connection &connection, std::chrono::milliseconds io_timeout, size_t max_framing_bytes)
    : impl_(std::make_unique<Impl>(connection, io_timeout, max_framing_bytes)) {}

SocketExchange::~SocketExchange() = default;

Request &SocketExchange::request() { return impl_->request; }
Response &SocketExchange::response() { return impl_->response; }

bool SocketExchange::finish() {
    Impl &x = *impl_;
    if (!x.response.sent()) {
        x.response.close_connection();
        x.response.send(500, "application/json", kGenericError);
    }
    if (!x.response.finish_stream() || x.socket.broken() || !x.response.keeps_connection()) return false;
    // A client still waiting for 100 Continue has sent no body: having had a final answer, it may send
    // it or not (RFC 9110 §10.1.1), so the connection cannot carry a next request reliably.
    if (!x.reader.started()) return false;
    // The rest of the body, so the next request starts where this one ends — only what has arrived
    // already. Waiting for more would hand this thread to whoever announces a body and never sends it
    // (no key needed: the answer may be a 403), for io_timeout per byte: 512 such requests left no
    // thread for /alive. A body still on its way ends the connection instead; the event loop lingers
    // for it, bounded, on no thread.
    x.socket.set_timeout(std::chrono::milliseconds(0));
    try {
        char sink[65536];
        for (size_t drained = 0; !x.connection.parser->is_done(); drained += sizeof sink)
            if (drained >= kDrainCap || x.reader.read(sink, sizeof sink) == 0) break;
    } catch (const std::exception &) {
        return false;
    }
    return x.connection.parser->is_done();
}

}  // namespace actionhost::common::http::detail
