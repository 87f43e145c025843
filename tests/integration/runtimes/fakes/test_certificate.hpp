// A self-signed certificate for 127.0.0.1 (made with the openssl command), for fakes that serve
// https://: the client trusts it through $SSL_CERT_FILE, as it would a private CA.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "support/cloud_fakes/fake_http_server.hpp"
#include "support/temp_dir.hpp"

namespace cloud_fakes {

using TlsFiles = actionhost::testing::TlsServerFiles;  // cert_file, key_file (PEM)

class TestCertificate {
  public:
    TestCertificate();  // throws std::runtime_error when openssl fails
    const TlsFiles &files() const { return files_; }

  private:
    std::unique_ptr<actionhost::testing::TempDir> dir_;
    TlsFiles files_;
};


}  // namespace cloud_fakes
