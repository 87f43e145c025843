#include "fake_http_server.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/ThreadPool.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/X509Certificate.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>
#include <actionhost/common/net/prompt_stop.hpp>

#include <cctype>

namespace actionhost::testing {

std::map<std::string, std::string> parse_query(const std::string &query) {
    std::map<std::string, std::string> out;
    Poco::URI uri("/?" + query);
    for (const auto &[k, v] : uri.getQueryParameters()) out[k] = v;
    return out;
}

struct FakeHttpServer::Impl {
    FakeHandler handler;
    mutable std::mutex mutex;
    std::vector<FakeRequest> log;
    // Our own pool, joined at destruction: a handler still running (a stalled reply) must not outlive
    // the server and run into the process's static destructors (ASan: use-after-free in Poco).
    Poco::ThreadPool pool{2, 16};
    std::unique_ptr<Poco::Net::HTTPServer> server;

    class Handler : public Poco::Net::HTTPRequestHandler {
      public:
        explicit Handler(Impl &impl) : impl_(impl) {}
        void handleRequest(Poco::Net::HTTPServerRequest &req, Poco::Net::HTTPServerResponse &resp) override {
            FakeRequest r;
            r.method = req.getMethod();
            std::string uri = req.getURI();
            auto q = uri.find('?');
            r.path = uri.substr(0, q);
            if (q != std::string::npos) {
                r.query = uri.substr(q + 1);
                r.params = parse_query(r.query);
            }
            for (const auto &[name, value] : req) {
                std::string lower = name;
                for (auto &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                r.headers[lower] = value;
            }
            r.content_type = req.getContentType();
            r.client_common_name = client_common_name(req);
            Poco::StreamCopier::copyToString(req.stream(), r.body);
            {
                std::lock_guard lock(impl_.mutex);
                FakeRequest logged = r;
                if (logged.body.size() > 4096) logged.body = logged.body.substr(0, 4096);
                impl_.log.push_back(std::move(logged));
            }
            FakeResponse out;
            try {
                out = impl_.handler(r);
            } catch (const std::exception &e) {
                out = FakeResponse::json(500, {{"detail", std::string("fake server error: ") + e.what()}});
            }
            resp.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(out.status));
            for (const auto &[name, value] : out.headers) resp.set(name, value);
            if (!out.body.empty()) resp.setContentType(out.content_type);
            resp.setContentLength(static_cast<std::streamsize>(out.body.size()));
            resp.send().write(out.body.data(), static_cast<std::streamsize>(out.body.size()));
        }

      private:
        static std::string client_common_name(Poco::Net::HTTPServerRequest &req) {
            auto *impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl *>(&req);
            if (impl == nullptr || !req.secure()) return "";
            try {
                Poco::Net::SecureStreamSocket secure(impl->socket());
                return secure.havePeerCertificate() ? secure.peerCertificate().commonName() : "";
            } catch (const Poco::Exception &) {
                return "";
            }
        }

        Impl &impl_;
    };
    class Factory : public Poco::Net::HTTPRequestHandlerFactory {
      public:
        explicit Factory(Impl &impl) : impl_(impl) {}
        Poco::Net::HTTPRequestHandler *createRequestHandler(const Poco::Net::HTTPServerRequest &) override {
            return new Handler(impl_);
        }

      private:
        Impl &impl_;
    };
};

FakeHttpServer::FakeHttpServer(FakeHandler handler, std::optional<TlsServerFiles> tls)
    : impl_(std::make_unique<Impl>()), tls_(tls.has_value()) {
    impl_->handler = std::move(handler);
    Poco::Net::SocketAddress where("127.0.0.1", 0);
    std::unique_ptr<Poco::Net::ServerSocket> socket;
    if (tls) {
        Poco::Net::Context::Params p;
        p.certificateFile = tls->cert_file;
        p.privateKeyFile = tls->key_file;
        p.verificationMode = tls->client_ca_file.empty() ? Poco::Net::Context::VERIFY_NONE : Poco::Net::Context::VERIFY_RELAXED;
        p.caLocation = tls->client_ca_file;
        p.loadDefaultCAs = false;
        Poco::Net::Context::Ptr ctx = new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, p);
        socket = std::make_unique<Poco::Net::SecureServerSocket>(where, 64, ctx);
    } else {
        socket = std::make_unique<Poco::Net::ServerSocket>(where);
    }
    port_ = socket->address().port();
    auto *params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(16);
    params->setKeepAlive(true);
    params->setTimeout(Poco::Timespan(600, 0));
    actionhost::common::prepare_for_prompt_stop(*params);
    impl_->server = std::make_unique<Poco::Net::HTTPServer>(new Impl::Factory(*impl_), impl_->pool, *socket, params);
    impl_->server->start();
}

FakeHttpServer::~FakeHttpServer() {
    actionhost::common::stop_promptly(*impl_->server, actionhost::common::StopMode::AbortingConnections);
    impl_->pool.joinAll();
}

std::string FakeHttpServer::url() const { return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_); }

std::vector<FakeRequest> FakeHttpServer::requests() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->log;
}

}  // namespace actionhost::testing
