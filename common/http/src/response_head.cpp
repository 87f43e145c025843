#include "response_head.hpp"

#include <charconv>

#include "actionhost/common/http/exchange.hpp"

namespace actionhost::common::http::detail {

namespace {

// RFC 9110's tchar. ASCII ranges, not std::isalnum: that asks the C locale, a call per character of
// every header of every answer.
bool is_token_char(unsigned char c) {
    static const std::string_view kSpecials = "!#$%&'*+-.^_`|~";
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           kSpecials.find(static_cast<char>(c)) != std::string_view::npos;
}

}  // namespace

bool valid_header(std::string_view name, std::string_view value) {
    if (name.empty()) return false;
    for (unsigned char c : name)
        if (!is_token_char(c)) return false;
    for (unsigned char c : value)
        if ((c < 0x20 && c != '\t') || c == 0x7F) return false;
    return true;
}

std::string response_head(const HeadFields &f) {
    // Appended in place into room reserved once: every answer's head is made here.
    std::string h;
    h.reserve(128 + f.content_type.size() + f.extra_headers.size());
    char number[24];
    auto append_number = [&](auto v) {
        const auto [end, ec] = std::to_chars(number, number + sizeof number, v);
        h.append(number, static_cast<size_t>(end - number));
    };
    h += "HTTP/1.1 ";
    append_number(f.status);
    h += ' ';
    h += reason_phrase(f.status);
    h += "\r\n";
    if (!f.content_type.empty() && valid_header("Content-Type", f.content_type)) {
        h += "Content-Type: ";
        h += f.content_type;
        h += "\r\n";
    }
    if (f.length) {
        h += "Content-Length: ";
        append_number(*f.length);
        h += "\r\n";
    } else if (f.chunked) {
        h += "Transfer-Encoding: chunked\r\n";
    }
    h += f.extra_headers;
    if (!f.keep_alive) h += "Connection: close\r\n";
    else if (f.request_version < 11) h += "Connection: keep-alive\r\n";
    h += "\r\n";
    return h;
}

}  // namespace actionhost::common::http::detail
