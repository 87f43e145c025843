// Unguessable identifiers: session ids, API keys, Jupyter's HMAC keys and message ids.
#pragma once

#include <cstddef>
#include <string>

namespace actionhost::common {

// `bytes` random bytes from the kernel's CSPRNG (getrandom), hex-encoded in lower case (2×bytes
// characters). Throws std::runtime_error if the kernel cannot give them (it blocks until its pool is
// seeded rather than return guessable bytes).
std::string random_hex(size_t bytes);

}  // namespace actionhost::common
