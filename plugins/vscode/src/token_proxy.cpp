// The token proxy's relays, on common/http's server (Beast's parser, Asio's event loop for idle
// connections, a thread per request being relayed) and Boost.Asio/Beast towards code-server's unix socket.
//
// Each relayed request runs its upstream side on an io_context of its own, driven by the request's
// thread: every upstream operation is bounded in time (run_bounded), and stop() ends them all at once by
// stopping those io_contexts. A WebSocket upgrade is relayed as bytes once both ends agreed on it: the
// client's handshake goes to code-server as it is (key, version, extensions), code-server's 101 comes
// back as it is, so the two ends negotiate directly and the proxy never parses a frame.
#include "token_proxy.hpp"

#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/NameValueCollection.h>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>

#include <actionhost/abi.h>
#include <actionhost/common/http/server.hpp>
#include <actionhost/common/http/upgraded_connection.hpp>
#include <actionhost/common/net/byte_relay.hpp>

#include <chrono>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

namespace actionhost::vscode {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using UpstreamSocket = asio::local::stream_protocol::socket;

namespace {

// A connect to a unix socket returns at once unless code-server's accept backlog is full.
constexpr std::chrono::seconds kConnectTimeout{10};
constexpr std::chrono::seconds kHttpTimeout{300};     // each read or write of a relayed request
constexpr std::chrono::seconds kUpgradeTimeout{30};   // code-server's answer to a WebSocket upgrade

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not relayed.
bool hop_by_hop(std::string_view name) {
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                        "proxy-authorization", "te", "trailer", "transfer-encoding",
                                        "upgrade", "content-length"};
    for (const char *n : names)
        if (boost::algorithm::iequals(name, n)) return true;
    return false;
}

// The vscode-tkn cookie of a request ("" when absent), read as Poco's HTTPRequest::getCookies reads it.
std::string cookie_token(const common::http::Request &req) {
    Poco::Net::NameValueCollection cookies;
    for (const auto &[name, value] : req.headers())
        if (boost::algorithm::iequals(name, "Cookie")) Poco::Net::MessageHeader::splitParameters(value.begin(), value.end(), cookies);
    return cookies.get(kTokenCookie, "");
}

std::string_view sv(beast::string_view s) { return {s.data(), s.size()}; }

struct RelayFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace

struct TokenProxy::State {
    std::string token;
    Logger log;
    std::string upstream_socket;
    std::mutex mu;
    bool stopping = false;
    std::set<asio::io_context *> relays;  // one per request being relayed, stopped by stop()
    std::unique_ptr<common::http::Server> server;

    void handle(common::http::Request &req, common::http::Response &resp);
    void relay_http(common::http::Request &req, common::http::Response &resp);
    void relay_upgrade(common::http::Request &req, common::http::Response &resp);
};

namespace {

// One request's upstream side: its event loop (registered with the proxy for stop()) and the socket.
class Upstream {
  public:
    explicit Upstream(TokenProxy::State &state) : state_(state) {
        std::lock_guard lock(state_.mu);
        if (state_.stopping) throw RelayFailed("the proxy is stopping");
        state_.relays.insert(&io_);
    }
    ~Upstream() {
        std::lock_guard lock(state_.mu);
        state_.relays.erase(&io_);
    }
    Upstream(const Upstream &) = delete;
    Upstream &operator=(const Upstream &) = delete;

    asio::io_context &io() { return io_; }
    UpstreamSocket &socket() { return socket_; }

    // Runs the operation `start` begins (it is handed the completion handler) to its end, for `timeout`
    // at most; past it, or once the proxy stops, the socket is closed and RelayFailed thrown.
    template <class Start>
    void run_bounded(std::chrono::seconds timeout, const char *what, Start start) {
        std::optional<boost::system::error_code> result;
        start([&result](const boost::system::error_code &ec, auto &&...) { result = ec; });
        io_.restart();
        {
            std::lock_guard lock(state_.mu);
            if (state_.stopping) io_.stop();
        }
        io_.run_for(timeout);
        if (!result) {
            boost::system::error_code ignored;
            socket_.close(ignored);
            io_.restart();
            io_.run();  // the aborted operation's handler
            throw RelayFailed(std::string(what) + ": timed out or stopped");
        }
        if (*result && *result != bhttp::error::need_buffer) throw RelayFailed(std::string(what) + ": " + result->message());
    }

    void connect(const std::string &path) {
        run_bounded(kConnectTimeout, "connect to code-server", [&](auto handler) {
            socket_.async_connect(asio::local::stream_protocol::endpoint(path), std::move(handler));
        });
    }

    void write(std::chrono::seconds timeout, asio::const_buffer bytes) {
        run_bounded(timeout, "write to code-server", [&](auto handler) { asio::async_write(socket_, bytes, std::move(handler)); });
    }

  private:
    TokenProxy::State &state_;
    asio::io_context io_{1};
    UpstreamSocket socket_{io_};
};

void answer(common::http::Response &resp, int status, const std::string &text) {
    if (!resp.sent()) resp.send(status, "text/plain", text);
}

// The request's header as code-server gets it: the client's fields but hop-by-hop ones. code-server
// checks Origin against Host, so the client's Host is relayed; a client that sent none (HTTP/1.0) gets
// one, since a connection on a unix socket has no host name of its own to add.
bhttp::request<bhttp::empty_body> upstream_request(const common::http::Request &req) {
    bhttp::request<bhttp::empty_body> out;
    out.method_string(req.method());
    out.target(req.target());
    out.version(11);
    for (const auto &[name, value] : req.headers())
        if (!hop_by_hop(name)) out.insert(name, value);
    if (out.find(bhttp::field::host) == out.end()) out.set(bhttp::field::host, "localhost");
    return out;
}

}  // namespace

void TokenProxy::State::handle(common::http::Request &req, common::http::Response &resp) {
    const bool upgrade = boost::algorithm::iequals(req.header("Upgrade"), "websocket");
    const bool redirectable = !upgrade && req.method() == "GET";
    AuthResult auth = authorize(token, req.target(), cookie_token(req), redirectable);
    if (auth.decision == AuthDecision::Forbid) return answer(resp, 403, "Forbidden.");
    if (auth.decision == AuthDecision::RedirectSettingCookie) {
        // What openvscode-server sends: a week-long, Lax cookie for the whole origin.
        resp.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + token + "; Path=/; Max-Age=604800; SameSite=Lax; HttpOnly");
        resp.set_header("Location", auth.location);
        return resp.send(302, "", "");
    }
    try {
        if (upgrade) relay_upgrade(req, resp);
        else relay_http(req, resp);
    } catch (const std::exception &e) {
        // Nothing listening on code-server's socket (dead, or restarting) among others.
        log(AH_LOG_DEBUG, "vscode proxy: " + req.target() + ": " + e.what());
        resp.close_connection();  // a body begun and broken off must not be taken for a whole one
        answer(resp, 502, "Bad Gateway.");
    }
}

void TokenProxy::State::relay_http(common::http::Request &req, common::http::Response &resp) {
    Upstream up(*this);
    up.connect(upstream_socket);
    auto out = upstream_request(req);
    const bool chunked = boost::algorithm::iequals(req.header("Transfer-Encoding"), "chunked");
    const auto length = chunked ? std::nullopt : req.content_length();
    const bool has_body = chunked || !req.header("Content-Length").empty();
    if (chunked) out.chunked(true);
    else if (has_body && length) out.content_length(*length);
    bhttp::request_serializer<bhttp::empty_body> head(out);
    up.run_bounded(kHttpTimeout, "write to code-server",
                   [&](auto handler) { bhttp::async_write_header(up.socket(), head, std::move(handler)); });
    char buf[16384];
    if (has_body) {
        std::istream &in = req.body();
        while (in) {
            in.read(buf, sizeof buf);
            const size_t n = static_cast<size_t>(in.gcount());
            if (n == 0) break;
            if (chunked) {
                up.run_bounded(kHttpTimeout, "write to code-server", [&](auto handler) {
                    asio::async_write(up.socket(), bhttp::make_chunk(asio::buffer(buf, n)), std::move(handler));
                });
            } else {
                up.write(kHttpTimeout, asio::buffer(buf, n));
            }
        }
        if (in.bad()) throw RelayFailed("the client's body broke off");
        if (chunked)
            up.run_bounded(kHttpTimeout, "write to code-server", [&](auto handler) {
                asio::async_write(up.socket(), bhttp::make_chunk_last(), std::move(handler));
            });
    }

    beast::flat_buffer from_up;
    bhttp::response_parser<bhttp::buffer_body> answer_in;
    answer_in.body_limit(std::numeric_limits<std::uint64_t>::max());
    answer_in.header_limit(64 * 1024);
    if (req.method() == "HEAD") answer_in.skip(true);
    up.run_bounded(kHttpTimeout, "read code-server's answer",
                   [&](auto handler) { bhttp::async_read_header(up.socket(), from_up, answer_in, std::move(handler)); });
    const auto &res = answer_in.get();
    for (const auto &field : res)
        if (!hop_by_hop(sv(field.name_string()))) resp.set_header(sv(field.name_string()), sv(field.value()));
    const int status = static_cast<int>(res.result_int());
    const bool no_body = req.method() == "HEAD" || status == 204 || status == 304 || status < 200;
    const auto up_length = answer_in.content_length();
    if (no_body && !up_length) return resp.send(status, "", "");
    std::ostream &body_out = up_length ? resp.begin_stream(status, "", *up_length) : resp.begin_stream(status, "");
    if (no_body) return;
    while (!answer_in.is_done() && body_out) {
        answer_in.get().body().data = buf;
        answer_in.get().body().size = sizeof buf;
        up.run_bounded(kHttpTimeout, "read code-server's answer",
                       [&](auto handler) { bhttp::async_read_some(up.socket(), from_up, answer_in, std::move(handler)); });
        const size_t n = sizeof buf - answer_in.get().body().size;
        body_out.write(buf, static_cast<std::streamsize>(n));
        body_out.flush();  // what code-server sent, passed on now (event streams, long polls)
    }
}

void TokenProxy::State::relay_upgrade(common::http::Request &req, common::http::Response &resp) {
    // Upstream first, so a refusal there reaches the client as a plain HTTP answer.
    Upstream up(*this);
    up.connect(upstream_socket);
    auto out = upstream_request(req);
    out.set(bhttp::field::connection, "Upgrade");
    out.set(bhttp::field::upgrade, req.header("Upgrade"));
    up.run_bounded(kUpgradeTimeout, "write to code-server", [&](auto handler) { bhttp::async_write(up.socket(), out, std::move(handler)); });
    beast::flat_buffer from_up;
    bhttp::response_parser<bhttp::empty_body> answer_in;
    answer_in.header_limit(64 * 1024);
    up.run_bounded(kUpgradeTimeout, "read code-server's answer",
                   [&](auto handler) { bhttp::async_read_header(up.socket(), from_up, answer_in, std::move(handler)); });
    const auto &res = answer_in.get();
    if (res.result_int() != 101) {
        log(AH_LOG_DEBUG, "vscode proxy: upstream refused WebSocket " + req.target() + ": " + std::to_string(res.result_int()));
        return answer(resp, 502, "Bad Gateway.");
    }
    for (const auto &field : res) resp.set_header(sv(field.name_string()), sv(field.value()));
    auto client = resp.upgrade(101, up.io());
    if (!client) return;
    boost::system::error_code ignored;
    client->socket.set_option(asio::ip::tcp::no_delay(true), ignored);  // TCP only: a unix socket has no Nagle
    bool done = false;
    common::net::start_byte_relay(client->socket, up.socket(), std::move(client->early_bytes),
                                  beast::buffers_to_string(from_up.data()), [&done] { done = true; });
    up.io().restart();
    {
        std::lock_guard lock(mu);
        if (stopping) up.io().stop();
    }
    up.io().run();  // until both directions ended, or stop()
    client->socket.close(ignored);
    up.socket().close(ignored);
    if (!done) {
        up.io().restart();
        up.io().run();  // the relay's aborted operations
    }
}

TokenProxy::TokenProxy(std::string token, std::string upstream_socket, Logger log) : state_(std::make_shared<State>()) {
    state_->token = std::move(token);
    state_->upstream_socket = std::move(upstream_socket);
    state_->log = std::move(log);
}

TokenProxy::~TokenProxy() { stop(); }

common::Status TokenProxy::start(const std::string &bind_host, int port) {
    try {
        common::http::ServerSettings settings;
        settings.name = "vscode-proxy";
        settings.io_timeout = kHttpTimeout;
        // A VS Code window keeps a few WebSockets open for its life, each on a thread while relayed.
        settings.max_handlers = 64;
        settings.log = [log = state_->log](const std::string &line) { log(AH_LOG_DEBUG, "vscode proxy: " + line); };
        auto state = state_;
        state_->server = std::make_unique<common::http::Server>(
            bind_host, static_cast<uint16_t>(port),
            [state](common::http::Request &req, common::http::Response &resp) { state->handle(req, resp); }, settings);
        state_->server->start();
        return common::ok();
    } catch (const std::exception &e) {
        state_->server.reset();
        return common::fail(e.what());
    }
}

void TokenProxy::stop() {
    if (!state_->server) return;
    {
        std::lock_guard lock(state_->mu);
        state_->stopping = true;
        for (auto *io : state_->relays) io->stop();
    }
    state_->server->stop();
    state_->server.reset();
}

}  // namespace actionhost::vscode
