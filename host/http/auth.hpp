// SESSION_API_KEY: when set, every path but /alive and /server_info needs X-Session-API-Key, as in
// OpenHands (docs/api.md).
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

  private:
    std::vector<unsigned char> mac(const std::string &text) const;

    bool enabled_;
    std::string mac_key_;                     // random, per process
    std::vector<unsigned char> expected_mac_;  // of the session key; the key itself is not kept
};

}  // namespace actionhost::host
