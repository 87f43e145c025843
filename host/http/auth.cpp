#include "http/auth.hpp"

#include <openssl/crypto.h>

namespace actionhost::host {

bool ApiKeyCheck::accepts(const std::string &presented) const {
    if (key_.empty()) return true;
    if (presented.size() != key_.size()) {
        // Still do the work of a comparison so the time does not depend on where a prefix ends.
        (void)CRYPTO_memcmp(key_.data(), key_.data(), key_.size());
        return false;
    }
    return CRYPTO_memcmp(presented.data(), key_.data(), key_.size()) == 0;
}

}  // namespace actionhost::host
