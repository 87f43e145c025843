#include "test_tls.hpp"

#include <stdexcept>

#include "support/run_process.hpp"

namespace actionhost::testing {

namespace {
void openssl(const std::vector<std::string> &args) {
    std::vector<std::string> argv = {"openssl"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_process(argv, 60);
    if (r.exit_code != 0) throw std::runtime_error("openssl " + args[0] + " failed: " + r.output);
}
}  // namespace

TestCertificateAuthority::TestCertificateAuthority() : dir_(std::make_unique<TempDir>("ah-test-ca")) {
    const std::string d = dir_->path();
    write_file(d + "/san.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", d + "/ca.key",
             "-out", d + "/ca.crt", "-subj", "/CN=actionhost test CA", "-days", "2"});
    openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", d + "/server.key",
             "-out", d + "/server.csr", "-subj", "/CN=localhost"});
    openssl({"x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.crt", "-CAkey", d + "/ca.key", "-CAcreateserial",
             "-out", d + "/server.crt", "-days", "2", "-extfile", d + "/san.ext"});
}

std::string TestCertificateAuthority::ca_pem() const { return read_file(ca_cert_file()); }

TestCertificateAuthority::ClientIdentity TestCertificateAuthority::issue_client_certificate(const std::string &common_name) const {
    const std::string d = dir_->path();
    const std::string stem = d + "/client-" + std::to_string(++clients_issued_);
    write_file(stem + ".ext", "extendedKeyUsage=clientAuth\n");
    openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", stem + ".key", "-out",
             stem + ".csr", "-subj", "/O=actionhost-tests/CN=" + common_name});
    openssl({"x509", "-req", "-in", stem + ".csr", "-CA", d + "/ca.crt", "-CAkey", d + "/ca.key", "-CAcreateserial", "-out",
             stem + ".crt", "-days", "2", "-extfile", stem + ".ext"});
    return {stem + ".crt", stem + ".key"};
}

}  // namespace actionhost::testing
