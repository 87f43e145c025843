// Reading a request body into memory with a limit, whatever its transfer encoding.
#pragma once

#include <Poco/Net/HTTPServerRequest.h>

#include <optional>
#include <string>

namespace actionhost::host {

// Largest JSON body accepted on /execute_action and friends unless ACTIONHOST_MAX_BODY_BYTES says
// otherwise: room for a 10 MB command or file content, far from what would strain the host.
inline constexpr size_t kDefaultMaxBodyBytes = 64u << 20;

// Reads and drops what is left of the request body, at most `cap` bytes, so that a client still sending
// when we answer early sees the answer instead of a reset connection.
void discard_body(Poco::Net::HTTPServerRequest &req, size_t cap = 8u << 20);

// Returns the body, or nullopt when it exceeds `limit` (nothing more is read than limit + 1 bytes).
std::optional<std::string> read_body(Poco::Net::HTTPServerRequest &req, size_t limit);

}  // namespace actionhost::host
