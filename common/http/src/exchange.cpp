#include "actionhost/common/http/exchange.hpp"
#include "actionhost/common/http/upgraded_connection.hpp"
#include "actionhost/common/http/websocket.hpp"

#include <Poco/URI.h>

#include <algorithm>
#include <cctype>

#include <boost/beast/http/status.hpp>

namespace actionhost::common::http {

std::unique_ptr<WebSocket> Response::accept_websocket(const WebSocketLimits &) { return nullptr; }

std::ostream &Response::begin_stream(int status, std::string_view content_type, uint64_t) {
    return begin_stream(status, content_type);
}

std::unique_ptr<UpgradedConnection> Response::upgrade(int, boost::asio::io_context &) { return nullptr; }

std::string_view reason_phrase(int status) {
    if (status < 100 || status > 999) return "Unknown";
    const auto text = boost::beast::http::obsolete_reason(boost::beast::http::int_to_status(static_cast<unsigned>(status)));
    if (text == "<unknown-status>") return "Unknown";
    return std::string_view(text.data(), text.size());
}

std::string attachment_disposition(std::string_view filename) {
    // A name of unreserved characters only is sent as OpenHands' server (Starlette) sends it.
    const bool plain = !filename.empty() && std::all_of(filename.begin(), filename.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
    });
    if (plain) return "attachment; filename=\"" + std::string(filename) + "\"";
    // The fallback for old clients: printable ASCII only, and no quote or backslash to escape.
    std::string ascii;
    for (unsigned char c : filename) ascii += (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') ? static_cast<char>(c) : '_';
    // filename*: letters, digits and "-._~" as they are (all RFC 8187 attr-chars), every other byte %XX
    // (CR, LF, quotes, separators, non-ASCII among them).
    std::string encoded;
    Poco::URI::encode(std::string(filename), "!#$&'()*+,/:;=?@[]", encoded);
    return "attachment; filename=\"" + ascii + "\"; filename*=UTF-8''" + encoded;
}

std::pair<std::string, std::string> split_target(const std::string &target) {
    const auto q = target.find('?');
    if (q == std::string::npos) return {target, ""};
    return {target.substr(0, q), target.substr(q + 1)};
}

std::optional<std::string> query_parameter(const std::string &query, std::string_view name) {
    std::optional<std::string> found;
    size_t i = 0;
    while (i <= query.size()) {
        size_t end = query.find('&', i);
        if (end == std::string::npos) end = query.size();
        std::string pair = query.substr(i, end - i);
        std::replace(pair.begin(), pair.end(), '+', ' ');  // form encoding (Poco 1.11's decode ignores plusAsSpace)
        const size_t eq = pair.find('=');
        std::string key, value;
        try {
            Poco::URI::decode(pair.substr(0, eq), key);
            if (eq != std::string::npos) Poco::URI::decode(pair.substr(eq + 1), value);
        } catch (const std::exception &) {
            key.clear();  // a malformed escape: not this parameter
        }
        if (!pair.empty() && key == name) found = value;  // the last one counts, as in FastAPI
        i = end + 1;
    }
    return found;
}

}  // namespace actionhost::common::http
