// Unguessable identifiers: session ids, API keys, Jupyter's HMAC keys and message ids, tokens, temporary
// names. The one source of randomness for anything someone must not guess: the kernel's CSPRNG
// (getrandom), checked — a failure throws rather than give a predictable (or all-zero) value.
// (Seeds of non-secret generators — port shuffles, back-off jitter — may use std::random_device.)
//
// Threads: any.
#pragma once

#include <cstddef>
#include <string>

namespace actionhost::common {

// `bytes` random bytes from the kernel's CSPRNG (getrandom), hex-encoded in lower case (2×bytes
// characters). Throws std::runtime_error if the kernel cannot give them (it blocks until its pool is
// seeded rather than return guessable bytes).
std::string random_hex(size_t bytes);

// Fills `out` with `size` random bytes from the same source; throws std::runtime_error on failure.
void random_bytes(void *out, size_t size);

// A random (version 4) UUID in its usual text form, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", as Python's
// uuid.uuid4() gives (OpenHands' tokens and ids).
std::string random_uuid4();

}  // namespace actionhost::common
