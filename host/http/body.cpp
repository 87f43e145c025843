#include "http/body.hpp"

namespace actionhost::host {

BodyText read_body(Request &req, size_t limit) {
    const BodyText too_large{std::nullopt, 413,
                             "Request body too large: the limit is " + std::to_string(limit) + " bytes (ACTIONHOST_MAX_BODY_BYTES)"};
    const auto declared = req.content_length();
    if (declared && *declared > limit) return too_large;
    std::string body;
    if (declared) body.reserve(static_cast<size_t>(*declared));
    std::istream &in = req.body();
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        const auto n = static_cast<size_t>(in.gcount());
        if (n == 0) break;
        if (body.size() + n > limit) return too_large;
        body.append(buf, n);
    }
    if (in.bad()) return {std::nullopt, 400, "The request body broke off or is badly framed"};
    return {std::move(body), 0, ""};
}

}  // namespace actionhost::host
