#include "support/http.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <Poco/String.h>

#include <memory>
#include <sstream>

namespace actionhost::testing {

struct Http::Impl {
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
};

Http::Http(std::string host, int port, double timeout_s) : impl_(new Impl) {
    impl_->session = std::make_unique<Poco::Net::HTTPClientSession>(host, static_cast<Poco::UInt16>(port));
    impl_->session->setKeepAlive(true);
    impl_->session->setTimeout(Poco::Timespan(static_cast<long>(timeout_s), 0));
}

Http::~Http() { delete impl_; }

HttpResponse Http::request(const std::string &method, const std::string &path, const std::string &body,
                           const std::string &content_type, const Headers &headers) {
    Poco::Net::HTTPRequest req(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
    req.setKeepAlive(true);
    for (const auto &[k, v] : headers) req.set(k, v);
    if (!content_type.empty()) req.setContentType(content_type);
    if (!body.empty() || method == "POST" || method == "PUT") req.setContentLength(static_cast<std::streamsize>(body.size()));
    std::ostream &os = impl_->session->sendRequest(req);
    os.write(body.data(), static_cast<std::streamsize>(body.size()));
    Poco::Net::HTTPResponse resp;
    std::istream &is = impl_->session->receiveResponse(resp);
    HttpResponse out;
    out.status = static_cast<int>(resp.getStatus());
    std::ostringstream ss;
    Poco::StreamCopier::copyStream(is, ss);
    out.body = ss.str();
    for (const auto &[k, v] : resp) out.headers[Poco::toLower(k)] = v;
    return out;
}

HttpResponse Http::upload(const std::string &path_and_query, const std::string &filename, const std::string &content,
                          const Headers &headers) {
    const std::string boundary = "----ahtestboundary7d93a1";
    std::string body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename +
                       "\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n";
    return request("POST", path_and_query, body, "multipart/form-data; boundary=" + boundary, headers);
}

}  // namespace actionhost::testing
