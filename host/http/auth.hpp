// SESSION_API_KEY: when set, every path but /alive and /server_info needs X-Session-API-Key (spec §1.3).
#pragma once

#include <string>

namespace actionhost::host {

class ApiKeyCheck {
  public:
    explicit ApiKeyCheck(std::string key) : key_(std::move(key)) {}
    bool enabled() const { return !key_.empty(); }
    static bool is_public_path(const std::string &path) { return path == "/alive" || path == "/server_info"; }
    // Constant-time in the key's content, so a wrong key says nothing about how much of it matched.
    bool accepts(const std::string &presented) const;

  private:
    std::string key_;
};

}  // namespace actionhost::host
