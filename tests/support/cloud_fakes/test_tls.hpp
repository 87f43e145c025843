// A certificate authority made for one test (openssl CLI, EC P-256 keys, valid 2 days) and a server
// certificate it signed for localhost and 127.0.0.1: what a fake needs to serve HTTPS that a client
// verifies for real, and client certificates it signs for mutual TLS.
#pragma once

#include <memory>
#include <string>

#include "support/cloud_fakes/fake_http_server.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::testing {

class TestCertificateAuthority {
  public:
    TestCertificateAuthority();  // throws std::runtime_error when openssl fails
    std::string ca_cert_file() const { return dir_->path() + "/ca.crt"; }
    std::string server_cert_file() const { return dir_->path() + "/server.crt"; }
    std::string server_key_file() const { return dir_->path() + "/server.key"; }
    std::string ca_pem() const;
    // The server certificate and key, as the fake servers take them.
    TlsServerFiles server_files() const { return {server_cert_file(), server_key_file()}; }

    // A client certificate (extendedKeyUsage clientAuth) for `common_name`, signed by this CA.
    struct ClientIdentity {
        std::string cert_file, key_file;
    };
    ClientIdentity issue_client_certificate(const std::string &common_name) const;

  private:
    std::unique_ptr<TempDir> dir_;
    mutable int clients_issued_ = 0;
};

}  // namespace actionhost::testing
