// Reading a request body into memory with a limit, whatever its transfer encoding.
#pragma once

#include <optional>
#include <string>

#include "http/responses.hpp"

namespace actionhost::host {

// Largest JSON body accepted on /execute_action and friends unless ACTIONHOST_MAX_BODY_BYTES says
// otherwise: room for a 10 MB command or file content, far from what would strain the host.
inline constexpr size_t kDefaultMaxBodyBytes = 64u << 20;

struct BodyText {
    std::optional<std::string> text;  // the body; nullopt when refused, as `status` and `detail` say
    int status = 0;
    std::string detail;
};

// The body, or why not: over `limit` (413; a declared length above it is refused before anything is
// read, and never more than limit + 1 bytes are read) or broken off / badly framed (400). What is left
// unread, the server reads and drops after the answer or closes the connection.
BodyText read_body(Request &req, size_t limit);

}  // namespace actionhost::host
