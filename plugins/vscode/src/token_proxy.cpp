#include "token_proxy.hpp"

#include <Poco/Buffer.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NameValueCollection.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/String.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>

#include <mutex>
#include <set>
#include <thread>

#include <actionhost/abi.h>
#include <actionhost/common/net/prompt_stop.hpp>

#include "upstream_socket.hpp"

namespace actionhost::vscode {

using Poco::Net::HTTPClientSession;
using Poco::Net::HTTPMessage;
using Poco::Net::HTTPRequest;
using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

namespace {

// A connect to a unix socket returns at once unless code-server's accept backlog is full.
const Poco::Timespan kConnectTimeout(10, 0);

// Compares without an early exit, so the time taken says nothing about how much of the token matched.
bool same_token(const std::string &a, const std::string &b) {
    if (a.size() != b.size() || a.empty()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not relayed.
bool hop_by_hop(const std::string &name) {
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                                        "proxy-authorization", "te", "trailer", "transfer-encoding",
                                        "upgrade", "content-length"};
    for (const char *n : names) {
        if (Poco::icompare(name, n) == 0) return true;
    }
    return false;
}

}  // namespace

AuthResult authorize(const std::string &token, const std::string &uri, const std::string &cookie_token,
                     bool redirectable) {
    AuthResult r;
    Poco::URI parsed;
    try {
        parsed = Poco::URI(uri);
    } catch (const Poco::Exception &) {
        return r;
    }
    // The raw query is filtered, not re-encoded, so the redirect keeps the client's own spelling.
    std::string kept;
    bool has_query_token = false;
    bool query_token_ok = false;
    try {
        std::string raw = parsed.getRawQuery();
        size_t pos = 0;
        while (pos <= raw.size()) {
            size_t amp = raw.find('&', pos);
            std::string part = raw.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
            pos = amp == std::string::npos ? raw.size() + 1 : amp + 1;
            if (part.empty()) continue;
            size_t eq = part.find('=');
            std::string key, value;
            Poco::URI::decode(part.substr(0, eq), key, true);
            if (eq != std::string::npos) Poco::URI::decode(part.substr(eq + 1), value, true);
            if (key == kTokenQuery) {
                has_query_token = true;
                query_token_ok = same_token(value, token);
            } else {
                kept += (kept.empty() ? "" : "&") + part;
            }
        }
    } catch (const Poco::Exception &) {
        return r;
    }
    if (has_query_token) {
        if (!query_token_ok) return r;  // a wrong token is refused even with a good cookie, as upstream does
        if (!redirectable) {
            r.decision = AuthDecision::Allow;
            return r;
        }
        r.decision = AuthDecision::RedirectSettingCookie;
        std::string raw_path = uri.substr(0, uri.find_first_of("?#"));
        r.location = raw_path.empty() || raw_path[0] != '/' ? "/" : raw_path;
        if (!kept.empty()) r.location += "?" + kept;
        return r;
    }
    if (same_token(cookie_token, token)) r.decision = AuthDecision::Allow;
    return r;
}

struct TokenProxy::State {
    std::string token;
    Logger log;
    std::string upstream_socket;
    std::atomic<bool> stopping{false};
    std::mutex sockets_mu;
    std::set<Poco::Net::StreamSocket *> live_sockets;  // relayed WebSockets, cut on stop()
    std::unique_ptr<Poco::ThreadPool> pool;
    std::unique_ptr<Poco::Net::HTTPServer> server;

    void track(Poco::Net::StreamSocket *s, bool add) {
        std::lock_guard<std::mutex> lock(sockets_mu);
        if (add) {
            live_sockets.insert(s);
        } else {
            live_sockets.erase(s);
        }
    }
};

namespace {

class ProxyHandler : public Poco::Net::HTTPRequestHandler {
  public:
    explicit ProxyHandler(std::shared_ptr<TokenProxy::State> state) : state_(std::move(state)) {}

    void handleRequest(HTTPServerRequest &req, HTTPServerResponse &resp) override {
        try {
            handle(req, resp);
        } catch (const Poco::Exception &e) {
            state_->log(AH_LOG_DEBUG, "vscode proxy: " + req.getURI() + ": " + e.displayText());
            answer(resp, HTTPResponse::HTTP_BAD_GATEWAY, "Bad Gateway.");
        } catch (const std::exception &e) {
            state_->log(AH_LOG_DEBUG, "vscode proxy: " + req.getURI() + ": " + e.what());
            answer(resp, HTTPResponse::HTTP_BAD_GATEWAY, "Bad Gateway.");
        }
    }

  private:
    static void answer(HTTPServerResponse &resp, HTTPResponse::HTTPStatus status, const std::string &text) {
        if (resp.sent()) return;
        resp.setStatusAndReason(status);
        resp.setContentType("text/plain");
        resp.setContentLength(static_cast<std::streamsize>(text.size()));
        resp.send() << text;
    }

    void handle(HTTPServerRequest &req, HTTPServerResponse &resp) {
        bool upgrade = req.has("Upgrade") && Poco::icompare(req.get("Upgrade"), "websocket") == 0;
        Poco::Net::NameValueCollection cookies;
        req.getCookies(cookies);
        bool redirectable = !upgrade && req.getMethod() == HTTPRequest::HTTP_GET;
        AuthResult auth = authorize(state_->token, req.getURI(), cookies.get(kTokenCookie, ""), redirectable);
        if (auth.decision == AuthDecision::Forbid) {
            answer(resp, HTTPResponse::HTTP_FORBIDDEN, "Forbidden.");
            return;
        }
        if (auth.decision == AuthDecision::RedirectSettingCookie) {
            // What openvscode-server sends: a week-long, Lax cookie for the whole origin.
            resp.add("Set-Cookie", std::string(kTokenCookie) + "=" + state_->token + "; Path=/; Max-Age=604800; SameSite=Lax; HttpOnly");
            resp.setStatusAndReason(HTTPResponse::HTTP_FOUND);
            resp.set("Location", auth.location);
            resp.setContentLength(0);
            resp.send();
            return;
        }
        if (upgrade) {
            relay_websocket(req, resp);
        } else {
            relay_http(req, resp);
        }
    }

    static void copy_headers(const Poco::Net::NameValueCollection &from, Poco::Net::NameValueCollection &to) {
        for (const auto &[name, value] : from) {
            if (!hop_by_hop(name)) to.add(name, value);
        }
    }

    // code-server checks Origin against Host, so the client's Host is relayed; a client that sent none
    // (HTTP/1.0) gets one, since a session on a unix socket has no host name of its own to add.
    static void ensure_host(HTTPRequest &out) {
        if (!out.has("Host")) out.setHost("localhost");
    }

    void relay_http(HTTPServerRequest &req, HTTPServerResponse &resp) {
        // Nothing listening on code-server's socket (dead, or restarting) throws: handleRequest answers 502.
        const Poco::Timespan timeout(300, 0);
        HTTPClientSession up(connect_unix_socket(state_->upstream_socket, kConnectTimeout, timeout));
        up.setTimeout(kConnectTimeout, timeout, timeout);
        HTTPRequest out(req.getMethod(), req.getURI(), HTTPMessage::HTTP_1_1);
        copy_headers(req, out);
        ensure_host(out);
        bool has_body = req.hasContentLength() || req.getChunkedTransferEncoding();
        if (req.hasContentLength()) out.setContentLength64(req.getContentLength64());
        if (req.getChunkedTransferEncoding()) out.setChunkedTransferEncoding(true);
        std::ostream &body_out = up.sendRequest(out);
        if (has_body) Poco::StreamCopier::copyStream64(req.stream(), body_out);

        HTTPResponse upres;
        std::istream &body_in = up.receiveResponse(upres);
        resp.setStatusAndReason(upres.getStatus(), upres.getReason());
        copy_headers(upres, resp);
        int status = static_cast<int>(upres.getStatus());
        bool no_body = req.getMethod() == HTTPRequest::HTTP_HEAD || status == 204 || status == 304 || status < 200;
        if (upres.hasContentLength()) {
            resp.setContentLength64(upres.getContentLength64());
        } else if (no_body) {
            resp.setContentLength(0);
        } else {
            resp.setChunkedTransferEncoding(true);
        }
        std::ostream &out_stream = resp.send();
        if (!no_body) Poco::StreamCopier::copyStream64(body_in, out_stream);
    }

    void relay_websocket(HTTPServerRequest &req, HTTPServerResponse &resp) {
        // Upstream first, so a refusal there reaches the client as a plain HTTP answer.
        const Poco::Timespan timeout(30, 0);
        HTTPClientSession up(connect_unix_socket(state_->upstream_socket, kConnectTimeout, timeout));
        up.setTimeout(kConnectTimeout, timeout, timeout);
        HTTPRequest out(HTTPRequest::HTTP_GET, req.getURI(), HTTPMessage::HTTP_1_1);
        for (const auto &[name, value] : req) {
            // Poco writes its own handshake headers; extensions (permessage-deflate) are not negotiated
            // on either side, so frames pass through as they are.
            if (hop_by_hop(name) || Poco::icompare(name.substr(0, 14), "sec-websocket-") == 0) continue;
            out.add(name, value);
        }
        ensure_host(out);
        HTTPResponse upres;
        std::unique_ptr<Poco::Net::WebSocket> upstream;
        try {
            upstream = std::make_unique<Poco::Net::WebSocket>(up, out, upres);
        } catch (const Poco::Net::WebSocketException &e) {
            state_->log(AH_LOG_DEBUG, "vscode proxy: upstream refused WebSocket " + req.getURI() + ": " + e.displayText());
            answer(resp, HTTPResponse::HTTP_BAD_GATEWAY, "Bad Gateway.");
            return;
        }
        Poco::Net::WebSocket client(req, resp);
        client.setReceiveTimeout(Poco::Timespan(0));
        upstream->setReceiveTimeout(Poco::Timespan(0));
        client.setNoDelay(true);  // TCP only: the upstream unix socket has no Nagle to turn off
        state_->track(&client, true);
        state_->track(upstream.get(), true);
        if (state_->stopping.load()) {
            client.shutdown();
            upstream->shutdown();
        }
        auto cut_both = [&] {
            try { client.shutdown(); } catch (...) {}
            try { upstream->shutdown(); } catch (...) {}
        };
        std::thread back([&] {
            pump(*upstream, client);
            cut_both();
        });
        pump(client, *upstream);
        cut_both();
        back.join();
        state_->track(&client, false);
        state_->track(upstream.get(), false);
    }

    // Relays frames from `from` to `to` until a close frame, an error or end of stream.
    static void pump(Poco::Net::WebSocket &from, Poco::Net::WebSocket &to) {
        Poco::Buffer<char> buf(0);
        try {
            for (;;) {
                buf.resize(0);
                int flags = 0;
                int n = from.receiveFrame(buf, flags);
                if (n == 0 && flags == 0) return;  // the peer closed the TCP connection
                to.sendFrame(buf.begin(), n, flags);
                if ((flags & Poco::Net::WebSocket::FRAME_OP_BITMASK) == Poco::Net::WebSocket::FRAME_OP_CLOSE) return;
            }
        } catch (const Poco::Exception &) {
        } catch (const std::exception &) {
        }
    }

    std::shared_ptr<TokenProxy::State> state_;
};

class ProxyHandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
  public:
    explicit ProxyHandlerFactory(std::shared_ptr<TokenProxy::State> state) : state_(std::move(state)) {}
    Poco::Net::HTTPRequestHandler *createRequestHandler(const HTTPServerRequest &) override {
        return new ProxyHandler(state_);
    }

  private:
    std::shared_ptr<TokenProxy::State> state_;
};

}  // namespace

TokenProxy::TokenProxy(std::string token, std::string upstream_socket, Logger log) : state_(std::make_shared<State>()) {
    state_->token = std::move(token);
    state_->upstream_socket = std::move(upstream_socket);
    state_->log = std::move(log);
}

TokenProxy::~TokenProxy() { stop(); }

bool TokenProxy::start(const std::string &bind_host, int port, std::string &error) {
    try {
        Poco::Net::ServerSocket socket(Poco::Net::SocketAddress(bind_host, static_cast<Poco::UInt16>(port)), 128);
        auto params = new Poco::Net::HTTPServerParams;
        params->setMaxThreads(64);
        params->setMaxQueued(256);
        params->setKeepAlive(true);
        params->setTimeout(Poco::Timespan(60, 0));
        common::prepare_for_prompt_stop(*params);
        // One thread per open connection: a VS Code window keeps a few WebSockets open for its life.
        state_->pool = std::make_unique<Poco::ThreadPool>(2, 64, 60);
        state_->server = std::make_unique<Poco::Net::HTTPServer>(new ProxyHandlerFactory(state_), *state_->pool,
                                                                 socket, params);
        state_->server->start();
        return true;
    } catch (const Poco::Exception &e) {
        error = e.displayText();
    } catch (const std::exception &e) {
        error = e.what();
    }
    state_->server.reset();
    state_->pool.reset();
    return false;
}

void TokenProxy::stop() {
    if (!state_->server) return;
    state_->stopping.store(true);
    try {
        common::stop_promptly(*state_->server, common::StopMode::AbortingConnections);
    } catch (...) {
    }
    {
        std::lock_guard<std::mutex> lock(state_->sockets_mu);
        for (auto *s : state_->live_sockets) {
            try {
                s->shutdown();
            } catch (...) {
            }
        }
    }
    state_->pool->joinAll();
    state_->server.reset();
    state_->pool.reset();
}

}  // namespace actionhost::vscode
