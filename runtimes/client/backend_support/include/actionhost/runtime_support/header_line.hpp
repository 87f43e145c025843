// A "Name: value" header line as the runtime C ABI passes headers (ah_http_call_t.headers, the
// http_response_headers extension): split at the first colon, the value's leading spaces dropped.
// Header-only: the client library uses it too, which does not link the backend support.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace actionhost::runtime_support {

// {name, value}, or nullopt for a line without a colon.
inline std::optional<std::pair<std::string, std::string>> split_header_line(std::string_view line) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    return std::pair<std::string, std::string>(line.substr(0, colon), value);
}

}  // namespace actionhost::runtime_support
