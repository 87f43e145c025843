// Percent-encoding for the paths and query values backends send to provider and engine APIs.
#pragma once

#include <string>

namespace actionhost::runtime_support {

// "a b/c" → "a%20b%2Fc" (RFC 3986 unreserved characters kept), for query values and path segments.
std::string url_encode(const std::string &text);

}  // namespace actionhost::runtime_support
