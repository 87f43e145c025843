#include "http/auth.hpp"

#include <Poco/HMACEngine.h>
#include <Poco/SHA1Engine.h>
#include <actionhost/common/random.hpp>

#include <cctype>
#include <string_view>

namespace actionhost::host {

// Double-HMAC comparison: both the presented key and the session key go through an HMAC under a random
// key drawn at start-up, and the MACs are compared. An ordinary comparison may stop at the first
// differing byte, but where the MACs first differ is unpredictable without the random key, so its timing
// tells a caller nothing about the session key (nor its length: MACs are all one size). It needs only
// Poco Foundation, which keeps libcrypto — 175 page faults, several ms — out of every host start.
// SHA-1 is enough here: HMAC needs a pseudo-random function, not collision resistance.
ApiKeyCheck::ApiKeyCheck(std::string key) : enabled_(!key.empty()) {
    if (!enabled_) return;
    mac_key_.resize(Poco::SHA1Engine::BLOCK_SIZE);
    common::random_bytes(mac_key_.data(), mac_key_.size());
    expected_mac_ = mac(key);
}

std::vector<unsigned char> ApiKeyCheck::mac(const std::string &text) const {
    Poco::HMACEngine<Poco::SHA1Engine> engine(mac_key_);
    engine.update(text);
    return engine.digest();
}

bool ApiKeyCheck::accepts(const std::string &presented) const {
    return !enabled_ || mac(presented) == expected_mac_;
}

std::string ApiKeyCheck::presented_key(const std::string &session_api_key_header, const std::string &authorization_header) {
    if (!session_api_key_header.empty()) return session_api_key_header;
    static constexpr std::string_view kScheme = "bearer ";
    if (authorization_header.size() <= kScheme.size()) return "";
    for (size_t i = 0; i < kScheme.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(authorization_header[i])) != kScheme[i]) return "";
    const size_t start = authorization_header.find_first_not_of(' ', kScheme.size());
    return start == std::string::npos ? "" : authorization_header.substr(start);
}

}  // namespace actionhost::host
