// SESSION_API_KEY: when set, every path but /alive and /server_info needs X-Session-API-Key, as in
// OpenHands (docs/api.md), or `Authorization: Bearer KEY` (what Prometheus and most HTTP tools send).
#pragma once

#include <string>
#include <vector>

namespace actionhost::host {

class ApiKeyCheck {
  public:
    explicit ApiKeyCheck(std::string key);
    bool enabled() const { return enabled_; }
    static bool is_public_path(const std::string &path) { return path == "/alive" || path == "/server_info"; }
    // The time taken says nothing about the key: neither how much of a guess matched nor its length.
    bool accepts(const std::string &presented) const;
    // The key a request presents: X-Session-API-Key when it has one, else the token of an
    // `Authorization: Bearer` header (scheme case-insensitive, RFC 7235), else "".
    static std::string presented_key(const std::string &session_api_key_header, const std::string &authorization_header);

  private:
    std::vector<unsigned char> mac(const std::string &text) const;

    bool enabled_;
    std::string mac_key_;                     // random, per process
    std::vector<unsigned char> expected_mac_;  // of the session key; the key itself is not kept
};

}  // namespace actionhost::host
