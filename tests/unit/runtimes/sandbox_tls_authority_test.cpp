// The per-sandbox certificate authority (runtimes/sandbox/init/tls_authority.hpp): its leaves verify for
// the secrets' hosts and, through its name constraints, for nothing else; each sandbox's is its own.
#include <gtest/gtest.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

#include "tls_authority.hpp"

using namespace sandbox;

namespace {

X509 *load_cert(const std::string &pem, size_t skip = 0) {
    BIO *bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509 *cert = nullptr;
    for (size_t i = 0; i <= skip; ++i) {
        X509_free(cert);
        cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    }
    BIO_free(bio);
    return cert;
}

// OpenSSL's verdict on `leaf_chain_pem` (leaf, then CA) for `host`, trusting `ca_pem` only: X509_V_OK
// or the error.
int verify(const std::string &ca_pem, const std::string &leaf_chain_pem, const std::string &host) {
    X509 *ca = load_cert(ca_pem), *leaf = load_cert(leaf_chain_pem);
    X509_STORE *store = X509_STORE_new();
    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, leaf, nullptr);
    X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx), host.c_str(), host.size());
    X509_VERIFY_PARAM_set_purpose(X509_STORE_CTX_get0_param(ctx), X509_PURPOSE_SSL_SERVER);
    const int ok = X509_verify_cert(ctx);
    const int error = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(ca);
    X509_free(leaf);
    return error;
}

}  // namespace

TEST(SandboxTlsAuthority, LeavesVerifyForTheSecretsHostsOnly) {
    const CaMaterial ca = make_sandbox_ca("actionhost sandbox test", {"git.test", "*.example.org"});
    EXPECT_NE(ca.cert_pem.find("BEGIN CERTIFICATE"), std::string::npos);
    EXPECT_NE(ca.key_pem.find("PRIVATE KEY"), std::string::npos);
    LeafIssuer issuer(ca.cert_pem, ca.key_pem);
    const auto git = issuer.leaf_for("git.test");
    EXPECT_EQ(verify(ca.cert_pem, git.chain_pem, "git.test"), X509_V_OK);
    EXPECT_EQ(verify(ca.cert_pem, git.chain_pem, "other.test"), X509_V_ERR_HOSTNAME_MISMATCH) << "a leaf is for its own name";
    EXPECT_EQ(verify(ca.cert_pem, issuer.leaf_for("api.example.org").chain_pem, "api.example.org"), X509_V_OK);
    // The CA's key could only ever vouch for the secrets' hosts: a leaf for another name (which the proxy
    // never asks for) fails on the name constraints, wherever it would be shown.
    EXPECT_EQ(verify(ca.cert_pem, issuer.leaf_for("bank.test").chain_pem, "bank.test"), X509_V_ERR_PERMITTED_VIOLATION);
    EXPECT_EQ(issuer.leaf_for("git.test").chain_pem, git.chain_pem) << "a host's leaf is made once";
    // The chain is leaf then CA; the CA is a CA for leaves only (pathlen 0).
    X509 *second = load_cert(git.chain_pem, 1);
    X509 *ca_cert = load_cert(ca.cert_pem);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(X509_cmp(second, ca_cert), 0);
    EXPECT_EQ(X509_check_ca(ca_cert), 1);
    EXPECT_EQ(X509_get_pathlen(ca_cert), 0);
    // No IP address either: the constraints exclude every one (a DNS-only constraint leaves them open).
    const int at = X509_get_ext_by_NID(ca_cert, NID_name_constraints, -1);
    ASSERT_GE(at, 0);
    X509_EXTENSION *constraints = X509_get_ext(ca_cert, at);
    EXPECT_EQ(X509_EXTENSION_get_critical(constraints), 1);
    BIO *text = BIO_new(BIO_s_mem());
    X509V3_EXT_print(text, constraints, 0, 0);
    char *data = nullptr;
    const std::string printed(data, static_cast<size_t>(BIO_get_mem_data(text, &data)));
    BIO_free(text);
    EXPECT_NE(printed.find("Excluded"), std::string::npos) << printed;
    EXPECT_NE(printed.find("IP:0.0.0.0/0.0.0.0"), std::string::npos) << printed;
    EXPECT_NE(printed.find("IP:0:0:0:0:0:0:0:0/0:0:0:0:0:0:0:0"), std::string::npos) << printed;
    X509_free(second);
    X509_free(ca_cert);
}

TEST(SandboxTlsAuthority, EachSandboxHasItsOwnAndNothingElseIsIssued) {
    const CaMaterial a = make_sandbox_ca("a", {"git.test"}), b = make_sandbox_ca("b", {"git.test"});
    EXPECT_NE(a.key_pem, b.key_pem);
    LeafIssuer from_b(b.cert_pem, b.key_pem);
    EXPECT_NE(verify(a.cert_pem, from_b.leaf_for("git.test").chain_pem, "git.test"), X509_V_OK) << "one sandbox's CA vouches for another's leaf";
    EXPECT_THROW(LeafIssuer(a.cert_pem, b.key_pem), std::runtime_error) << "a key that is not the certificate's";
    EXPECT_THROW(LeafIssuer("not a pem", a.key_pem), std::runtime_error);
    EXPECT_THROW(make_sandbox_ca("c", {}), std::invalid_argument);
    LeafIssuer from_a(a.cert_pem, a.key_pem);
    // A name that would change the extension it is written into (a second alternative name) is refused.
    EXPECT_THROW(from_a.leaf_for("git.test,DNS:bank.test"), std::invalid_argument);
    EXPECT_THROW(from_a.leaf_for("GIT.test"), std::invalid_argument) << "names come normalised";
    EXPECT_THROW(from_a.leaf_for(""), std::invalid_argument);
}
