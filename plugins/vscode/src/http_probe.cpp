#include "http_probe.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/NullStream.h>
#include <Poco/StreamCopier.h>

namespace actionhost::vscode {

std::optional<int> http_status(int port, const std::string &path, int timeout_ms) {
    try {
        Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
        session.setTimeout(Poco::Timespan(0, timeout_ms * 1000));
        Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path, Poco::Net::HTTPMessage::HTTP_1_1);
        session.sendRequest(request);
        Poco::Net::HTTPResponse response;
        std::istream &body = session.receiveResponse(response);
        Poco::NullOutputStream sink;
        Poco::StreamCopier::copyStream(body, sink);
        return static_cast<int>(response.getStatus());
    } catch (...) {
        return std::nullopt;
    }
}

}  // namespace actionhost::vscode
