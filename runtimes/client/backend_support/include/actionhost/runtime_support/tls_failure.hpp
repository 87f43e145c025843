// How the client library's http_request service (ah_runtime_host_t) tells a TLS handshake failure — a
// certificate not trusted, expired or for another host — from the other transport errors: its error
// text starts with this prefix. Retrying cannot fix such a failure, so a provider call fails at once
// instead of going through its retries (tens of seconds) to the same error.
// Header-only: the client library (which writes the text) and the backends (which read it) share it.
#pragma once

#include <string_view>

namespace actionhost::runtime_support {

inline constexpr std::string_view kTlsFailurePrefix = "TLS handshake failed: ";

inline bool is_tls_failure(std::string_view transport_error) { return transport_error.rfind(kTlsFailurePrefix, 0) == 0; }

}  // namespace actionhost::runtime_support
