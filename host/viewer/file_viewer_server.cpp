#include "viewer/file_viewer_server.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "http/responses.hpp"
#include "viewer/file_viewer_page.hpp"
#include <actionhost/common/net/prompt_stop.hpp>

namespace actionhost::host {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

void send_html(HTTPServerResponse &resp, int status, const std::string &html) {
    resp.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    resp.setContentType("text/html; charset=utf-8");
    resp.setContentLength(static_cast<std::streamsize>(html.size()));
    resp.send().write(html.data(), static_cast<std::streamsize>(html.size()));
}

class ViewerHandler : public Poco::Net::HTTPRequestHandler {
  public:
    void handleRequest(HTTPServerRequest &req, HTTPServerResponse &resp) override {
        try {
            const Poco::URI uri(req.getURI());
            const std::string path = uri.getPath();
            if (path != "/" && path != "/view") return send_detail(resp, 404, "Not Found");
            if (req.getMethod() != "GET") return send_detail(resp, 405, "Method Not Allowed");
            if (path == "/") return send_json(resp, 200, {{"status", "File viewer server is running"}});
            // FastAPI takes the last of repeated scalar query parameters.
            std::optional<std::string> file;
            for (const auto &[k, v] : uri.getQueryParameters())
                if (k == "path") file = v;
            if (!file) {
                // FastAPI's answer to a missing required query parameter.
                return send_json(resp, 422, {{"detail", nlohmann::json::array({{{"type", "missing"},
                                                                                  {"loc", {"query", "path"}},
                                                                                  {"msg", "Field required"},
                                                                                  {"input", nullptr}}})}});
            }
            ViewerPage page = view_file_page(*file, req.clientAddress().host().toString());
            send_html(resp, page.status, page.html);
        } catch (const std::exception &) {
            if (!resp.sent()) send_detail(resp, 500, "An unexpected error occurred. Please try again later.");
        }
    }
};

class ViewerFactory : public Poco::Net::HTTPRequestHandlerFactory {
  public:
    Poco::Net::HTTPRequestHandler *createRequestHandler(const HTTPServerRequest &) override { return new ViewerHandler; }
};

// OpenHands' find_available_tcp_port: ten random ports of the range, the first that binds.
Poco::Net::ServerSocket bind_viewer_socket(int main_port) {
    Poco::Net::ServerSocket socket;
    if (main_port > 0 && main_port < 65535) {
        std::vector<int> ports(static_cast<size_t>(std::min(main_port + 1024, 65535) - main_port));
        std::iota(ports.begin(), ports.end(), main_port + 1);
        std::shuffle(ports.begin(), ports.end(), std::mt19937(std::random_device{}()));
        for (size_t i = 0; i < ports.size() && i < 10; ++i) {
            try {
                socket.bind(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(ports[i])), false);
                socket.listen(64);
                return socket;
            } catch (const std::exception &) {
                socket = Poco::Net::ServerSocket();
            }
        }
    }
    // No API port to count from (PORT 0), or ten busy ports: any free port.
    socket.bind(Poco::Net::SocketAddress("127.0.0.1", 0), false);
    socket.listen(64);
    return socket;
}

}  // namespace

FileViewerServer::FileViewerServer(const FileViewerSettings &settings) {
    Poco::Net::ServerSocket socket;
    try {
        socket = bind_viewer_socket(settings.main_port);
    } catch (const std::exception &e) {
        throw std::runtime_error(std::string("the file viewer cannot listen on 127.0.0.1: ") + e.what());
    }
    port_ = socket.address().port();
    url_ = "http://localhost:" + std::to_string(port_);
    pool_ = std::make_unique<Poco::ThreadPool>("viewer", 1, 16, 60);
    auto *params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(16);
    params->setKeepAlive(true);
    common::prepare_for_prompt_stop(*params);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new ViewerFactory, *pool_, socket, params);
    server_->start();
    if (!settings.url_file.empty()) {
        // Written whole through a rename, so a reader never sees half a URL (OpenHands writes no newline).
        const std::string tmp = settings.url_file + ".tmp" + std::to_string(port_);
        std::ofstream(tmp) << url_;
        std::error_code ec;
        std::filesystem::rename(tmp, settings.url_file, ec);
        if (ec && settings.log) settings.log("cannot write " + settings.url_file + ": " + ec.message());
    }
    if (settings.log) settings.log("file viewer server started at " + url_);
}

FileViewerServer::~FileViewerServer() {
    common::stop_promptly(*server_, common::StopMode::AbortingConnections);
    pool_->joinAll();
}

}  // namespace actionhost::host
