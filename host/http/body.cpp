#include "http/body.hpp"

namespace actionhost::host {

void discard_body(Poco::Net::HTTPServerRequest &req, size_t cap) {
    std::istream &in = req.stream();
    char buf[65536];
    size_t total = 0;
    while (in && total < cap) {
        in.read(buf, sizeof buf);
        const auto n = static_cast<size_t>(in.gcount());
        if (n == 0) break;
        total += n;
    }
}

std::optional<std::string> read_body(Poco::Net::HTTPServerRequest &req, size_t limit) {
    if (req.hasContentLength() && req.getContentLength64() > static_cast<Poco::Int64>(limit)) {
        discard_body(req);
        return std::nullopt;
    }
    std::string body;
    if (req.hasContentLength()) body.reserve(static_cast<size_t>(req.getContentLength64()));
    std::istream &in = req.stream();
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        const auto n = static_cast<size_t>(in.gcount());
        if (n == 0) break;
        if (body.size() + n > limit) {
            discard_body(req);
            return std::nullopt;
        }
        body.append(buf, n);
    }
    return body;
}

}  // namespace actionhost::host
