// Debian's docker-registry (distribution 2.8) on 127.0.0.1:<free port> for one test (or suite), its
// storage in a temp dir the test may read and change (a tampered blob); optional htpasswd auth.
// Stopped (its process group killed) when the object goes.
#pragma once

#include <string>

#include "support/temp_dir.hpp"

namespace actionhost::testing {

class LocalRegistry {
  public:
    explicit LocalRegistry(const std::string &htpasswd = "");
    ~LocalRegistry();
    LocalRegistry(const LocalRegistry &) = delete;
    LocalRegistry &operator=(const LocalRegistry &) = delete;
    bool started() const { return started_; }
    const std::string &why_not() const { return why_not_; }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    // Where the registry keeps blob `digest` ("sha256:<hex>"): <storage>/docker/registry/v2/blobs/sha256/<2>/<hex>/data.
    std::string blob_path(const std::string &digest) const;

  private:
    TempDir dir_{"ahregistry"};
    int pid_ = -1, port_ = 0;
    bool started_ = false;
    std::string why_not_;
};

}  // namespace actionhost::testing
