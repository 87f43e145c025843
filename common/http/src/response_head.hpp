// The status line and header of a response, as every exchange of the server writes it: the handler's
// thread (socket_exchange.cpp) and the event loop's answers (server.cpp) say the same things the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace actionhost::common::http::detail {

// Whether a header may be sent: a token for a name, no control character (CR, LF, NUL...) in the value,
// so that no text of a request can become a header line.
bool valid_header(std::string_view name, std::string_view value);

struct HeadFields {
    int status = 200;
    std::string_view content_type;     // "" for none
    std::optional<uint64_t> length;    // Content-Length, or nullopt
    bool chunked = false;              // Transfer-Encoding: chunked (when no length)
    std::string_view extra_headers;    // "Name: value\r\n" lines already checked with valid_header
    bool keep_alive = true;            // false: "Connection: close"
    unsigned request_version = 11;     // 10 for HTTP/1.0 (keep-alive must then be said)
};

// "HTTP/1.1 <status> <reason>\r\n...\r\n\r\n".
std::string response_head(const HeadFields &f);

}  // namespace actionhost::common::http::detail
