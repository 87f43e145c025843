#include "tunnel_proxy.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>

#include <cctype>

#include "tls_listener.hpp"

namespace cloud_fakes {

namespace {

struct Target {
    int port;
    std::string token_header, token;
    std::shared_ptr<std::atomic<bool>> open;
    std::atomic<int> in_flight{0};
    std::atomic<std::chrono::steady_clock::rep> last_request{std::chrono::steady_clock::now().time_since_epoch().count()};
};

// Marks a request's start and end as activity (the fakes' idle timers read them).
class InFlight {
  public:
    explicit InFlight(Target &t) : t_(t) {
        ++t_.in_flight;
        touch();
    }
    ~InFlight() {
        touch();
        --t_.in_flight;
    }

  private:
    void touch() { t_.last_request.store(std::chrono::steady_clock::now().time_since_epoch().count()); }
    Target &t_;
};

bool hop_by_hop(std::string name) {
    for (auto &c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name == "connection" || name == "keep-alive" || name == "transfer-encoding" || name == "content-length" ||
           name == "host" || name == "upgrade" || name == "proxy-connection";
}

class ProxyHandler : public Poco::Net::HTTPRequestHandler {
  public:
    explicit ProxyHandler(Target &t) : t_(t) {}
    void handleRequest(Poco::Net::HTTPServerRequest &req, Poco::Net::HTTPServerResponse &resp) override {
        using namespace Poco::Net;
        const InFlight busy(t_);
        std::string body;
        Poco::StreamCopier::copyToString(req.stream(), body);
        auto fail = [&](HTTPResponse::HTTPStatus status, const std::string &text) {
            resp.setStatus(status);
            resp.setContentType("text/plain");
            resp.setContentLength(static_cast<std::streamsize>(text.size()));
            resp.send() << text;
        };
        if (!t_.open->load()) return fail(HTTPResponse::HTTP_BAD_GATEWAY, "sandbox is not running");
        if (!t_.token.empty() && req.get(t_.token_header, "") != t_.token)
            return fail(HTTPResponse::HTTP_UNAUTHORIZED, "missing or wrong " + t_.token_header);
        try {
            HTTPClientSession upstream("127.0.0.1", static_cast<Poco::UInt16>(t_.port));
            upstream.setTimeout(Poco::Timespan(600, 0));
            HTTPRequest out(req.getMethod(), req.getURI(), HTTPMessage::HTTP_1_1);
            for (const auto &[k, v] : req)
                if (!hop_by_hop(k)) out.set(k, v);
            out.setContentLength(static_cast<std::streamsize>(body.size()));
            upstream.sendRequest(out) << body;
            HTTPResponse in;
            std::istream &from = upstream.receiveResponse(in);
            resp.setStatus(in.getStatus());
            for (const auto &[k, v] : in)
                if (!hop_by_hop(k)) resp.set(k, v);
            if (in.hasContentLength()) resp.setContentLength64(in.getContentLength64());
            else resp.setChunkedTransferEncoding(true);
            Poco::StreamCopier::copyStream(from, resp.send(), 4096);
        } catch (const Poco::Exception &e) {
            if (!resp.sent()) fail(HTTPResponse::HTTP_BAD_GATEWAY, "upstream: " + e.displayText());
        }
    }

  private:
    Target &t_;
};

class ProxyFactory : public Poco::Net::HTTPRequestHandlerFactory {
  public:
    explicit ProxyFactory(Target &t) : t_(t) {}
    Poco::Net::HTTPRequestHandler *createRequestHandler(const Poco::Net::HTTPServerRequest &) override {
        return new ProxyHandler(t_);
    }

  private:
    Target &t_;
};

}  // namespace

struct TunnelProxy::Impl {
    Target target;
    std::unique_ptr<Poco::Net::HTTPServer> server;
    int port = 0;
    bool tls = false;
};

TunnelProxy::TunnelProxy(int target_port, std::string token_header, std::string token, std::optional<actionhost::testing::TlsServerFiles> tls)
    : impl_(std::make_unique<Impl>()), open_(std::make_shared<std::atomic<bool>>(true)) {
    impl_->target.port = target_port;
    impl_->target.token_header = std::move(token_header);
    impl_->target.token = std::move(token);
    impl_->target.open = open_;
    impl_->tls = tls.has_value();
    Poco::Net::ServerSocket socket = listen_loopback(tls);
    impl_->port = socket.address().port();
    auto *params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(16);
    params->setKeepAlive(true);
    impl_->server = std::make_unique<Poco::Net::HTTPServer>(new ProxyFactory(impl_->target), socket, params);
    impl_->server->start();
}

TunnelProxy::~TunnelProxy() { impl_->server->stopAll(true); }

std::string TunnelProxy::url() const {
    return std::string(impl_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(impl_->port);
}
int TunnelProxy::port() const { return impl_->port; }

int TunnelProxy::open_connections() const { return impl_->server->currentConnections(); }
int TunnelProxy::requests_in_flight() const { return impl_->target.in_flight.load(); }
std::chrono::steady_clock::time_point TunnelProxy::last_request() const {
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(impl_->target.last_request.load()));
}

}  // namespace cloud_fakes
