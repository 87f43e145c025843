// The egress proxy's reading of a ClientHello (runtimes/sandbox/init/egress_proxy.hpp): the name a real
// TLS client asks for, made by OpenSSL here; too few bytes; no name; not TLS; a name that is no host name.
// The proxy as a whole runs in tests/integration/runtimes/sandbox_secrets_test.cpp.
#include <gtest/gtest.h>

#include <openssl/bio.h>
#include <openssl/ssl.h>

#include <string>

#include "egress_proxy.hpp"

using namespace sandbox;

namespace {

// The first flight of a TLS client asking for `name` ("" for none), as it would go on the wire.
std::string client_hello(const std::string &name) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL *ssl = SSL_new(ctx);
    BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, in, out);
    if (!name.empty()) SSL_set_tlsext_host_name(ssl, name.c_str());
    SSL_set_connect_state(ssl);
    (void)SSL_do_handshake(ssl);  // wants to read the server's answer: the hello is in `out`
    char *data = nullptr;
    const long n = BIO_get_mem_data(out, &data);
    std::string hello(data, static_cast<size_t>(n > 0 ? n : 0));
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    return hello;
}

}  // namespace

TEST(SandboxEgressProxy, TheClientHellosNameIsReadLowerCased) {
    const std::string hello = client_hello("Git.Test");
    ASSERT_GT(hello.size(), 100u);
    const ServerName name = client_hello_server_name(hello);
    EXPECT_EQ(name.state, ServerName::Named);
    EXPECT_EQ(name.name, "git.test");
    EXPECT_EQ(client_hello_server_name(client_hello("")).state, ServerName::Unnamed);
}

TEST(SandboxEgressProxy, PartOfAHelloAsksForMoreAndWhatIsNotTlsIsTold) {
    const std::string hello = client_hello("git.test");
    for (size_t cut : {size_t{1}, size_t{5}, size_t{40}, hello.size() - 1})
        EXPECT_EQ(client_hello_server_name(hello.substr(0, cut)).state, ServerName::NeedMore) << cut << " bytes";
    EXPECT_EQ(client_hello_server_name("").state, ServerName::NeedMore);
    EXPECT_EQ(client_hello_server_name("GET / HTTP/1.1\r\nHost: git.test\r\n\r\n").state, ServerName::NotTls);
    std::string garbage = hello;
    garbage[5] = '\x7f';  // no longer a ClientHello message
    EXPECT_NE(client_hello_server_name(garbage).state, ServerName::Named);
}

TEST(SandboxEgressProxy, ANameThatIsNoHostNameIsNone) {
    // Such a name never matches a secret and never reaches a certificate.
    for (const char *bad : {"git.test,DNS:bank.test", "*.git.test", "git test", "-bad.test"})
        EXPECT_EQ(client_hello_server_name(client_hello(bad)).state, ServerName::Unnamed) << bad;
}
