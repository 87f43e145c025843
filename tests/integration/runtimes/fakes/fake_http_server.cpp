#include "fake_http_server.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include "tls_listener.hpp"
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

namespace cloud_fakes {

using nlohmann::json;

json FakeRequest::json() const {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

std::string FakeRequest::header(const std::string &name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
}

FakeReply FakeReply::json(int status, const nlohmann::json &body) {
    FakeReply r;
    r.status = status;
    r.body = body.is_null() ? "" : body.dump();
    return r;
}

namespace {

class Handler : public Poco::Net::HTTPRequestHandler {
  public:
    explicit Handler(const FakeHttpServer::Route &route) : route_(route) {}
    void handleRequest(Poco::Net::HTTPServerRequest &req, Poco::Net::HTTPServerResponse &resp) override {
        FakeRequest r;
        r.method = req.getMethod();
        Poco::URI uri(req.getURI());
        r.path = uri.getPath();
        for (const auto &[k, v] : uri.getQueryParameters()) r.query[k] = v;
        for (const auto &[k, v] : req) {
            std::string lower = k;
            for (auto &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            r.headers[lower] = v;
        }
        r.content_type = req.getContentType();
        Poco::StreamCopier::copyToString(req.stream(), r.body);
        FakeReply out;
        try {
            out = route_(r);
        } catch (const std::exception &e) {
            out = FakeReply::json(500, {{"message", std::string("fake crashed: ") + e.what()}});
        }
        resp.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(out.status));
        for (const auto &[k, v] : out.headers) resp.set(k, v);
        if (!out.body.empty()) resp.setContentType(out.content_type);
        resp.setContentLength(static_cast<std::streamsize>(out.body.size()));
        resp.send() << out.body;
    }

  private:
    const FakeHttpServer::Route &route_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
  public:
    explicit Factory(const FakeHttpServer::Route &route) : route_(route) {}
    Poco::Net::HTTPRequestHandler *createRequestHandler(const Poco::Net::HTTPServerRequest &) override { return new Handler(route_); }

  private:
    const FakeHttpServer::Route &route_;
};

}  // namespace

struct FakeHttpServer::Impl {
    Route route;
    // Our own pool, joined at destruction: a handler still running (a stalled reply) must not outlive
    // the server and run into the process's static destructors (ASan: use-after-free in Poco).
    Poco::ThreadPool pool{2, 16};
    std::unique_ptr<Poco::Net::HTTPServer> server;
    int port = 0;
    bool tls = false;
};

FakeHttpServer::FakeHttpServer(Route route, int threads, std::optional<TlsFiles> tls) : impl_(std::make_unique<Impl>()) {
    impl_->route = std::move(route);
    impl_->tls = tls.has_value();
    Poco::Net::ServerSocket socket = listen_loopback(tls);
    impl_->port = socket.address().port();
    auto *params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(threads);
    params->setMaxQueued(64);
    params->setKeepAlive(true);
    impl_->server = std::make_unique<Poco::Net::HTTPServer>(new Factory(impl_->route), impl_->pool, socket, params);
    impl_->server->start();
}

FakeHttpServer::~FakeHttpServer() {
    impl_->server->stopAll(true);
    impl_->pool.joinAll();
}

int FakeHttpServer::port() const { return impl_->port; }
std::string FakeHttpServer::url() const {
    return std::string(impl_->tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(impl_->port);
}

}  // namespace cloud_fakes
