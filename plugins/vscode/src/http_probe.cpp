#include "http_probe.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/NullStream.h>
#include <Poco/StreamCopier.h>

#include "upstream_socket.hpp"

namespace actionhost::vscode {
namespace {

// `host`: the Host header, "" for the session's own (a session made from a connected unix socket has none).
int get_status(Poco::Net::HTTPClientSession &session, const std::string &path, const std::string &host) {
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path, Poco::Net::HTTPMessage::HTTP_1_1);
    if (!host.empty()) request.setHost(host);
    session.sendRequest(request);
    Poco::Net::HTTPResponse response;
    std::istream &body = session.receiveResponse(response);
    Poco::NullOutputStream sink;
    Poco::StreamCopier::copyStream(body, sink);
    return static_cast<int>(response.getStatus());
}

}  // namespace

std::optional<int> http_status(int port, const std::string &path, int timeout_ms) {
    try {
        Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
        session.setTimeout(Poco::Timespan(0, timeout_ms * 1000));
        return get_status(session, path, "");
    } catch (...) {
        return std::nullopt;
    }
}

std::optional<int> http_status_on_socket(const std::string &socket_path, const std::string &path, int timeout_ms) {
    try {
        const Poco::Timespan timeout(0, timeout_ms * 1000);
        Poco::Net::HTTPClientSession session(connect_unix_socket(socket_path, timeout, timeout));
        session.setTimeout(timeout);
        return get_status(session, path, "localhost");
    } catch (...) {
        return std::nullopt;
    }
}

}  // namespace actionhost::vscode
