#include <utility>  // first: Boost 1.74's awaitable.hpp uses std::exchange without including it
#include <actionhost/common/text.hpp>

#include "egress_proxy.hpp"

#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "egress_rules.hpp"
#include "name_rules.hpp"
#include "tls_authority.hpp"

namespace sandbox {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using asio::use_awaitable;
using namespace std::chrono_literals;

namespace {

// IP6T_SO_ORIGINAL_DST (linux/netfilter_ipv6/ip6_tables.h, which does not build as C++) is the same option.
constexpr int kOriginalDst6 = SO_ORIGINAL_DST;
constexpr auto kHelloTimeout = 10s;  // from accept to a complete ClientHello and both handshakes
constexpr auto kIdle = 300s;         // without a byte either way, a connection ends
constexpr auto kRequestTimeout = 30s;  // for a whole request header, and between requests
constexpr size_t kHeaderLimit = 64 * 1024;
constexpr int kMaxRequestsPerConnection = 10000;
// Bodies of any length pass (they are relayed as they come, never held). Not boost::none: Beast 1.74
// compares a Content-Length with the optional itself, and every length exceeds "none".
constexpr std::uint64_t kNoBodyLimit = std::numeric_limits<std::uint64_t>::max();

void note(const std::string &host, const std::string &what) {
    std::fprintf(stderr, "ah-sandbox-net: egress proxy: %s: %s\n", host.c_str(), what.c_str());
}

// The ClientHello callback of client_hello_server_name: takes the server_name extension and stops the
// handshake (the probe never answers).
int read_server_name(SSL *ssl, int *alert, void *) {
    auto *out = static_cast<ServerName *>(SSL_get_app_data(ssl));
    const unsigned char *ext = nullptr;
    size_t len = 0;
    out->state = ServerName::Unnamed;
    // RFC 6066: a list (2-byte length) of {type (1), name (2-byte length + bytes)}; type 0 is a host name.
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &ext, &len) == 1 && len >= 2) {
        const size_t end = std::min(len, 2 + ((static_cast<size_t>(ext[0]) << 8) | ext[1]));
        for (size_t at = 2; at + 3 <= end;) {
            const size_t n = (static_cast<size_t>(ext[at + 1]) << 8) | ext[at + 2];
            if (at + 3 + n > end) break;
            if (ext[at] == 0) {
                out->name.assign(reinterpret_cast<const char *>(ext + at + 3), n);
                out->state = ServerName::Named;
                break;
            }
            at += 3 + n;
        }
    }
    *alert = SSL_AD_HANDSHAKE_FAILURE;
    return SSL_CLIENT_HELLO_ERROR;
}

SSL_CTX *probe_context() {
    static SSL_CTX *const ctx = [] {
        SSL_CTX *c = SSL_CTX_new(TLS_server_method());
        if (c != nullptr) SSL_CTX_set_client_hello_cb(c, read_server_name, nullptr);
        return c;
    }();
    return ctx;
}

// The address the sandbox's connection was made to, before the nat rule sent it here.
std::optional<tcp::endpoint> original_destination(tcp::socket &s) {
    boost::system::error_code ec;
    const auto local = s.local_endpoint(ec);
    if (ec) return std::nullopt;
    tcp::endpoint out;
    if (local.address().is_v6()) {
        sockaddr_in6 a{};
        socklen_t len = sizeof a;
        if (getsockopt(s.native_handle(), SOL_IPV6, kOriginalDst6, &a, &len) != 0) return std::nullopt;
        std::memcpy(out.data(), &a, sizeof a);
        out.resize(sizeof a);
    } else {
        sockaddr_in a{};
        socklen_t len = sizeof a;
        if (getsockopt(s.native_handle(), SOL_IP, SO_ORIGINAL_DST, &a, &len) != 0) return std::nullopt;
        std::memcpy(out.data(), &a, sizeof a);
        out.resize(sizeof a);
    }
    return out;
}


// The Host header's name (its ":443" cut), lower-cased, without a final dot.
std::string host_of(boost::beast::string_view header) {
    std::string h(header.data(), header.size());
    if (const size_t colon = h.rfind(':'); colon != std::string::npos && h.find(']') == std::string::npos) {
        if (h.substr(colon + 1) != "443") return "";  // another port is another origin
        h.erase(colon);
    }
    return normalised_name(h);
}

// Framing both ends read alike, or a reason it is not (RFC 9112 §6): at most one Content-Length, at most
// one Transfer-Encoding and then exactly "chunked", not both, and none of it on HTTP/1.0. Beast's parser
// takes a repeated Transfer-Encoding's last field and its serializer the first: relayed as they came, a
// body de-chunked here would reach a server that merges the fields as its own chunk framing (a red-team
// run smuggled the proxy's next request, secret and all, into the body of one of its choosing).
template <class Fields>
std::string framing_fault(const Fields &fields, unsigned version) {
    const auto te = fields.count(http::field::transfer_encoding), cl = fields.count(http::field::content_length);
    if (te > 1 || cl > 1) return "a repeated Transfer-Encoding or Content-Length";
    if (te == 1 && cl == 1) return "both Transfer-Encoding and Content-Length";
    if (te == 1) {
        const auto v = fields[http::field::transfer_encoding];
        if (actionhost::common::ascii_lower(std::string_view(v.data(), v.size())) != "chunked") return "a Transfer-Encoding other than chunked";
        if (version < 11) return "Transfer-Encoding on HTTP/1.0";
    }
    return "";
}

// What the proxy will not relay with a secret, or "": a request for another origin than the connection's
// (an absolute-form target names its own, and servers route by it; a repeated Host), a method that
// echoes the request (TRACE, TRACK) or leaves HTTP (CONNECT), and framing the two ends could read
// differently (framing_fault).
std::string request_fault(const http::request<http::buffer_body> &head, const std::string &host) {
    if (head.count(http::field::host) != 1 || host_of(head[http::field::host]) != host)
        return "this connection is for " + host + "; its requests must be too (one Host: " + host + ")";
    const auto target = head.target();
    if (!(target.starts_with("/") || (target == "*" && head.method() == http::verb::options)))
        return "only origin-form request targets (\"/path\") go through with a secret";
    if (head.method() == http::verb::trace || head.method() == http::verb::connect || head.method_string() == "TRACK")
        return std::string(head.method_string().data(), head.method_string().size()) + " is not relayed with a secret";
    return framing_fault(head, head.version());
}

// A response header that carries the secret back (an echo of the request) is not passed on as it is.
// (A body that echoes it cannot be told from data: docs/security.md.)
void redact(http::response<http::buffer_body> &res, const std::string &secret) {
    std::vector<std::string> names;
    for (const auto &field : res)
        if (field.value().find(secret) != boost::beast::string_view::npos) names.emplace_back(field.name_string());
    for (const auto &name : names) res.set(name, "[removed by actionhost: it held a secret]");
}

}  // namespace

ServerName client_hello_server_name(const std::string &bytes) {
    if (bytes.empty()) return {ServerName::NeedMore, ""};
    if (static_cast<unsigned char>(bytes[0]) != 0x16) return {ServerName::NotTls, ""};  // not a handshake record
    SSL_CTX *ctx = probe_context();
    if (ctx == nullptr) return {ServerName::NotTls, ""};
    SSL *ssl = SSL_new(ctx);
    if (ssl == nullptr) return {ServerName::NotTls, ""};
    BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
    if (in == nullptr || out == nullptr) {
        BIO_free(in);
        BIO_free(out);
        SSL_free(ssl);
        return {ServerName::NotTls, ""};
    }
    BIO_write(in, bytes.data(), static_cast<int>(bytes.size()));
    BIO_set_mem_eof_return(in, -1);  // the end of what arrived so far is "more to come", not the end
    SSL_set_bio(ssl, in, out);
    ServerName result;
    SSL_set_app_data(ssl, &result);
    SSL_set_accept_state(ssl);
    const int r = SSL_do_handshake(ssl);
    const bool want_more = r <= 0 && SSL_get_error(ssl, r) == SSL_ERROR_WANT_READ;
    SSL_free(ssl);
    if (result.state == ServerName::NeedMore) return {want_more ? ServerName::NeedMore : ServerName::NotTls, ""};
    if (result.state == ServerName::Named) {
        // Only a host name proper is matched against the secrets (and put into a certificate).
        try {
            result.name = normalise_name_entry(result.name);
            if (result.name.find('*') != std::string::npos) throw std::invalid_argument("wildcard");
        } catch (const std::invalid_argument &) {
            return {ServerName::Unnamed, ""};
        }
    }
    return result;
}

struct ProxyState {
    ProxyState(asio::io_context &io, std::vector<tcp::acceptor> l, ProxyConfig c)
        : io(io), listeners(std::move(l)), secrets(std::move(c.secrets)), issuer(c.ca_cert_pem, c.ca_key_pem) {
        upstream_tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                                 ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
        upstream_tls.set_default_verify_paths();
        if (!c.upstream_ca_pem.empty()) upstream_tls.add_certificate_authority(asio::buffer(c.upstream_ca_pem));
        upstream_tls.set_verify_mode(ssl::verify_peer);
    }

    // The TLS server side for `host`: its leaf from the sandbox's CA, made once.
    std::shared_ptr<ssl::context> server_context(const std::string &host) {
        if (auto it = servers.find(host); it != servers.end()) return it->second;
        const LeafIssuer::Leaf leaf = issuer.leaf_for(host);
        auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
        ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                         ssl::context::no_tlsv1_1);
        ctx->use_certificate_chain(asio::buffer(leaf.chain_pem));
        ctx->use_private_key(asio::buffer(leaf.key_pem), ssl::context::pem);
        if (servers.size() >= LeafIssuer::kMaxLeaves) servers.clear();
        servers.emplace(host, ctx);
        return ctx;
    }

    asio::io_context &io;
    std::vector<tcp::acceptor> listeners;
    std::vector<EgressSecret> secrets;
    LeafIssuer issuer;
    ssl::context upstream_tls{ssl::context::tls_client};
    std::map<std::string, std::shared_ptr<ssl::context>> servers;
    ProxyCounts counts;
    int active = 0;
};

namespace {

using State = ProxyState;

// One connection of the sandbox: its socket, the upstream one, and a deadline that closes both when it
// passes (each byte moved puts it off). finish() closes both and ends the watch.
struct Connection {
    Connection(std::shared_ptr<State> s, tcp::socket socket)
        : owner(std::move(s)), client(std::move(socket)), upstream(owner->io), deadline(owner->io) {
        ++owner->active;
    }
    ~Connection() { --owner->active; }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;
    void kick(std::chrono::steady_clock::duration d) { deadline.expires_after(d); }
    void finish() {
        boost::system::error_code ignored;
        client.close(ignored);
        upstream.close(ignored);
        deadline.expires_at(std::chrono::steady_clock::time_point::min());
    }
    std::shared_ptr<State> owner;
    tcp::socket client, upstream;
    asio::steady_timer deadline;
    std::shared_ptr<ssl::context> server_tls;  // outlives the stream that uses it
    std::unique_ptr<ssl::stream<tcp::socket &>> client_tls, upstream_tls;
    int open_directions = 2;
};

asio::awaitable<void> watch(std::shared_ptr<Connection> c) {
    while (c->deadline.expiry() > std::chrono::steady_clock::now()) {
        boost::system::error_code ec;
        co_await c->deadline.async_wait(asio::redirect_error(use_awaitable, ec));
    }
    c->finish();
}

// Bytes from `from` to `to` until either ends. With `half_close` (plain TCP) the end of one direction
// is passed on as a shutdown and the other goes on; else (TLS) the first end ends the connection.
template <class From, class To>
asio::awaitable<void> pump(std::shared_ptr<Connection> c, From &from, To &to, tcp::socket *half_close) {
    std::array<char, 16384> buffer;
    boost::system::error_code ec;
    for (;;) {
        const size_t n = co_await from.async_read_some(asio::buffer(buffer), asio::redirect_error(use_awaitable, ec));
        if (ec) break;
        c->kick(kIdle);
        co_await asio::async_write(to, asio::buffer(buffer.data(), n), asio::redirect_error(use_awaitable, ec));
        if (ec) break;
    }
    if (ec == asio::error::eof && half_close != nullptr && --c->open_directions > 0) {
        boost::system::error_code ignored;
        half_close->shutdown(tcp::socket::shutdown_send, ignored);
        co_return;
    }
    c->finish();
}

// One HTTP message's body from `from` to `to` after its header (already read into `p`, maybe changed),
// through a small buffer: as it comes, whatever its length or chunking.
template <bool isRequest, class From, class To>
asio::awaitable<void> relay_message(Connection &c, From &from, boost::beast::flat_buffer &buffer, To &to,
                                    http::parser<isRequest, http::buffer_body> &p) {
    auto &body = p.get().body();
    http::serializer<isRequest, http::buffer_body> sr{p.get()};
    body.data = nullptr;
    body.size = 0;
    body.more = !p.is_done();
    boost::system::error_code ec;
    co_await http::async_write_header(to, sr, asio::redirect_error(use_awaitable, ec));
    if (ec) throw boost::system::system_error(ec);
    std::array<char, 16384> chunk;
    do {
        if (!p.is_done()) {
            body.data = chunk.data();
            body.size = chunk.size();
            co_await http::async_read(from, buffer, p, asio::redirect_error(use_awaitable, ec));
            if (ec == http::error::need_buffer) ec = {};
            if (ec) throw boost::system::system_error(ec);
            body.size = chunk.size() - body.size;
            body.data = chunk.data();
            body.more = !p.is_done();
        } else {
            body.data = nullptr;
            body.size = 0;
            body.more = false;
        }
        co_await http::async_write(to, sr, asio::redirect_error(use_awaitable, ec));
        if (ec == http::error::need_buffer) ec = {};
        if (ec) throw boost::system::system_error(ec);
        c.kick(kIdle);
    } while (!p.is_done() || !sr.is_done());
}

// A short answer of the proxy's own to the sandbox's client, on a connection that then ends.
template <class Stream>
asio::awaitable<void> answer(Stream &to, http::status status, const std::string &text) {
    http::response<http::string_body> res{status, 11};
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.set(http::field::connection, "close");
    res.body() = text + "\n";
    res.prepare_payload();
    boost::system::error_code ignored;
    co_await http::async_write(to, res, asio::redirect_error(use_awaitable, ignored));
}

// A connection to a secret's host: TLS ended on both sides, HTTP relayed with the secret added.
asio::awaitable<void> intercept(std::shared_ptr<State> s, std::shared_ptr<Connection> c, const std::string &host, const EgressSecret &secret) {
    c->server_tls = s->server_context(host);
    c->client_tls = std::make_unique<ssl::stream<tcp::socket &>>(c->client, *c->server_tls);
    c->upstream_tls = std::make_unique<ssl::stream<tcp::socket &>>(c->upstream, s->upstream_tls);
    auto &client = *c->client_tls;
    auto &upstream = *c->upstream_tls;
    co_await client.async_handshake(ssl::stream_base::server, use_awaitable);
    // The upstream must prove the same name against the machine's trust: else nothing is sent.
    SSL_set_tlsext_host_name(upstream.native_handle(), host.c_str());
    // Checked by OpenSSL during the handshake, with no partial wildcards ("f*.example.com").
    SSL_set_hostflags(upstream.native_handle(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (SSL_set1_host(upstream.native_handle(), host.c_str()) != 1) co_return;
    boost::system::error_code ec;
    co_await upstream.async_handshake(ssl::stream_base::client, asio::redirect_error(use_awaitable, ec));
    if (ec) {
        ++s->counts.refused;
        note(host, "the server did not prove it is " + host + " (" + ec.message() + "); no secret was sent");
        // The request is read first (and dropped): a connection closed with unread data is reset, and the
        // client would never see the answer.
        boost::beast::flat_buffer unread;
        http::request_parser<http::empty_body> dropped;
        dropped.header_limit(kHeaderLimit);
        co_await http::async_read_header(client, unread, dropped, asio::redirect_error(use_awaitable, ec));
        co_await answer(client, http::status::bad_gateway,
                        "actionhost egress proxy: " + host + " did not prove its identity (" + ec.message() + "); nothing was sent to it");
        co_return;
    }
    c->kick(kIdle);
    boost::beast::flat_buffer from_client, from_upstream;
    for (int round = 0; round < kMaxRequestsPerConnection; ++round) {
        http::request_parser<http::buffer_body> req;
        req.header_limit(kHeaderLimit);
        req.body_limit(kNoBodyLimit);
        c->kick(kRequestTimeout);  // a header dribbled byte by byte holds a connection no longer
        co_await http::async_read_header(client, from_client, req, asio::redirect_error(use_awaitable, ec));
        if (ec) co_return;  // the sandbox's client is done (or sent what is not HTTP/1)
        auto &head = req.get();
        if (const std::string fault = request_fault(head, host); !fault.empty()) {
            ++s->counts.refused;
            const bool misdirected = fault.rfind("this connection", 0) == 0;
            co_await answer(client, misdirected ? http::status::misdirected_request : http::status::bad_request,
                            "actionhost egress proxy: " + fault);
            co_return;
        }
        head.set(secret.header, secret.header_value);  // replaces whatever the sandbox put there
        if (actionhost::common::ascii_lower(std::string_view(head[http::field::expect].data(), head[http::field::expect].size())) == "100-continue") {
            // Answered here, so the body comes at once (the upstream sees a request without Expect).
            head.erase(http::field::expect);
            static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
            co_await asio::async_write(client, asio::buffer(kContinue), use_awaitable);
        }
        const bool is_head = head.method() == http::verb::head;
        ++s->counts.injected;
        co_await relay_message(*c, client, from_client, upstream, req);
        bool keep_alive = false;
        for (int interim = 0; interim < 16; ++interim) {
            http::response_parser<http::buffer_body> res;
            res.header_limit(kHeaderLimit);
            res.body_limit(kNoBodyLimit);
            res.skip(is_head);
            co_await http::async_read_header(upstream, from_upstream, res, use_awaitable);
            const unsigned status = res.get().result_int();
            if (!framing_fault(res.get(), res.get().version()).empty()) {
                ++s->counts.refused;
                co_return;  // the sandbox's client sees the connection end
            }
            redact(res.get(), secret.header_value);
            co_await relay_message(*c, upstream, from_upstream, client, res);
            if (status == 101) {
                // Upgraded (a WebSocket): what either side already sent on goes first, then raw bytes.
                co_await asio::async_write(client, from_upstream.data(), use_awaitable);
                co_await asio::async_write(upstream, from_client.data(), use_awaitable);
                asio::co_spawn(s->io, pump(c, client, upstream, nullptr), asio::detached);
                co_await pump(c, upstream, client, nullptr);
                co_return;
            }
            if (status >= 200) {
                keep_alive = res.keep_alive();
                break;
            }
        }
        if (!keep_alive || !req.keep_alive()) co_return;
    }
}

asio::awaitable<void> handle(std::shared_ptr<State> s, std::shared_ptr<Connection> c) {
    const auto original = original_destination(c->client);
    // Made to the proxy itself (no nat rule sent it), or not tracked: nowhere to go.
    if (!original || original->address().is_loopback() || original->port() == 0) {
        ++s->counts.refused;
        co_return;
    }
    // The ClientHello, looked at without taking it from the socket: passed on untouched, or read by TLS.
    ServerName name;
    std::array<char, 16384> peek;
    for (int round = 0; round < 200; ++round) {
        const size_t n = co_await c->client.async_receive(asio::buffer(peek), tcp::socket::message_peek, use_awaitable);
        name = client_hello_server_name(std::string(peek.data(), n));
        if (name.state != ServerName::NeedMore || n == peek.size()) break;
        asio::steady_timer wait(s->io, 5ms);  // the rest of it is still on its way
        co_await wait.async_wait(use_awaitable);
    }
    const EgressSecret *secret = name.state == ServerName::Named ? secret_for_host(s->secrets, name.name) : nullptr;
    c->upstream.open(original->protocol());
    const unsigned mark = kProxyMark;
    if (setsockopt(c->upstream.native_handle(), SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0) co_return;
    boost::system::error_code ec;
    co_await c->upstream.async_connect(*original, asio::redirect_error(use_awaitable, ec));
    if (ec) co_return;  // refused by the filter, or down: the sandbox's client sees the connection end
    c->kick(secret != nullptr ? kHelloTimeout : kIdle);
    if (secret == nullptr) {
        ++s->counts.relayed;
        asio::co_spawn(s->io, pump(c, c->client, c->upstream, &c->upstream), asio::detached);
        co_await pump(c, c->upstream, c->client, &c->client);
        co_return;
    }
    ++s->counts.intercepted;
    co_await intercept(s, c, name.name, *secret);
}

asio::awaitable<void> serve(std::shared_ptr<State> s, tcp::socket socket) {
    auto c = std::make_shared<Connection>(s, std::move(socket));  // counted while any part of it runs
    c->kick(kHelloTimeout);
    asio::co_spawn(s->io, watch(c), asio::detached);
    try {
        co_await handle(s, c);
    } catch (const std::exception &e) {
        // the connection ends: a peer went away, a parse failed, a deadline passed
        if (c->client_tls) note("a connection to a secret's host", e.what());
    }
    // A relay still running in its other direction ends the connection itself.
    if (c->open_directions == 2) c->finish();
}

asio::awaitable<void> accept(std::shared_ptr<State> s, size_t listener) {
    for (;;) {
        boost::system::error_code ec;
        tcp::socket socket = co_await s->listeners[listener].async_accept(asio::redirect_error(use_awaitable, ec));
        if (ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) co_return;
        if (ec) {  // out of descriptors, say: a pause, not a spin
            asio::steady_timer wait(s->io, 50ms);
            co_await wait.async_wait(asio::redirect_error(use_awaitable, ec));
            continue;
        }
        if (s->active >= EgressProxy::kMaxConnections) {
            ++s->counts.refused;
            continue;  // closed as it goes out of scope
        }
        asio::co_spawn(s->io, serve(s, std::move(socket)), asio::detached);
    }
}

}  // namespace

EgressProxy::EgressProxy(asio::io_context &io, std::vector<tcp::acceptor> listeners, ProxyConfig config)
    : state_(std::make_shared<ProxyState>(io, std::move(listeners), std::move(config))) {
    for (size_t i = 0; i < state_->listeners.size(); ++i) asio::co_spawn(io, accept(state_, i), asio::detached);
}

EgressProxy::~EgressProxy() {
    boost::system::error_code ignored;
    for (auto &l : state_->listeners) l.close(ignored);
}

const ProxyCounts &EgressProxy::counts() const { return state_->counts; }

}  // namespace sandbox
