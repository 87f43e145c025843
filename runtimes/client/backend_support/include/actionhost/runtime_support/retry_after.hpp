// How long a provider asks to be left alone before a retry: RFC 9110 §10.2.3 Retry-After (seconds or an
// HTTP date) and the retry-after-ms header that Stainless-generated clients (Runloop's) honour first.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace actionhost::runtime_support {

// Seconds to wait, from headers with lower-case names; nullopt when there is no such header or it does
// not parse. A date in the past is 0.
std::optional<double> retry_after_seconds(const std::map<std::string, std::string> &headers,
                                          std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace actionhost::runtime_support
