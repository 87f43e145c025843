// The token check of the proxy: decides each request from its URI and its cookie (token_proxy.hpp).
#include <Poco/Exception.h>
#include <Poco/URI.h>

#include "token_proxy.hpp"

namespace actionhost::vscode {

namespace {

// Compares without an early exit, so the time taken says nothing about how much of the token matched.
bool same_token(const std::string &a, const std::string &b) {
    if (a.size() != b.size() || a.empty()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace

AuthResult authorize(const std::string &token, const std::string &uri, const std::string &cookie_token,
                     bool redirectable) {
    AuthResult r;
    Poco::URI parsed;
    try {
        parsed = Poco::URI(uri);
    } catch (const Poco::Exception &) {
        return r;
    }
    // The raw query is filtered, not re-encoded, so the redirect keeps the client's own spelling.
    std::string kept;
    bool has_query_token = false;
    bool query_token_ok = false;
    try {
        std::string raw = parsed.getRawQuery();
        size_t pos = 0;
        while (pos <= raw.size()) {
            size_t amp = raw.find('&', pos);
            std::string part = raw.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
            pos = amp == std::string::npos ? raw.size() + 1 : amp + 1;
            if (part.empty()) continue;
            size_t eq = part.find('=');
            std::string key, value;
            Poco::URI::decode(part.substr(0, eq), key, true);
            if (eq != std::string::npos) Poco::URI::decode(part.substr(eq + 1), value, true);
            if (key == kTokenQuery) {
                has_query_token = true;
                query_token_ok = same_token(value, token);
            } else {
                kept += (kept.empty() ? "" : "&") + part;
            }
        }
    } catch (const Poco::Exception &) {
        return r;
    }
    if (has_query_token) {
        if (!query_token_ok) return r;  // a wrong token is refused even with a good cookie, as upstream does
        if (!redirectable) {
            r.decision = AuthDecision::Allow;
            return r;
        }
        r.decision = AuthDecision::RedirectSettingCookie;
        std::string raw_path = uri.substr(0, uri.find_first_of("?#"));
        r.location = raw_path.empty() || raw_path[0] != '/' ? "/" : raw_path;
        if (!kept.empty()) r.location += "?" + kept;
        return r;
    }
    if (same_token(cookie_token, token)) r.decision = AuthDecision::Allow;
    return r;
}

}  // namespace actionhost::vscode
