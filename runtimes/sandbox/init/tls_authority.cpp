#include "tls_authority.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace sandbox {

namespace {

template <typename T, void (*Free)(T *)>
struct Freer {
    void operator()(T *p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Freer<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;

constexpr long kHour = 3600;
constexpr long kYear = 365L * 24 * kHour;

void must(bool ok, const char *what) {
    if (!ok) throw std::runtime_error(std::string("the sandbox's certificate authority: cannot ") + what);
}

Key new_key() {
    Key key(EVP_EC_gen("P-256"));
    must(key != nullptr, "make a P-256 key");
    return key;
}

std::string bio_text(BIO *bio) {
    char *data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

std::string cert_pem(X509 *cert) {
    Bio bio(BIO_new(BIO_s_mem()));
    must(bio && PEM_write_bio_X509(bio.get(), cert) == 1, "write a certificate");
    return bio_text(bio.get());
}

std::string key_pem(EVP_PKEY *key) {
    Bio bio(BIO_new(BIO_s_mem()));
    must(bio && PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1, "write a key");
    return bio_text(bio.get());
}

// A certificate with a random 128-bit serial, `subject`'s common name, valid from an hour ago for
// `lifetime` seconds, with `key`'s public half.
Cert new_cert(const std::string &common_name, EVP_PKEY *key, long lifetime) {
    Cert cert(X509_new());
    must(cert != nullptr, "make a certificate");
    unsigned char serial[16];
    must(RAND_bytes(serial, sizeof serial) == 1, "draw a serial number");
    serial[0] &= 0x7f;  // positive
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, nullptr);
    const bool serial_set = bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr;
    BN_free(bn);
    must(serial_set, "set a serial number");
    X509_NAME *name = X509_get_subject_name(cert.get());
    must(X509_set_version(cert.get(), 2) == 1 &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char *>(common_name.c_str()), -1, -1, 0) == 1 &&
             X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kHour) != nullptr &&
             X509_gmtime_adj(X509_getm_notAfter(cert.get()), lifetime) != nullptr && X509_set_pubkey(cert.get(), key) == 1,
         "fill a certificate");
    return cert;
}

void add_extension(X509 *cert, X509 *issuer, int nid, const std::string &value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    const bool ok = ext != nullptr && X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    must(ok, ("add the extension " + value).c_str());
}

}  // namespace

CaMaterial make_sandbox_ca(const std::string &common_name, const std::vector<std::string> &hosts) {
    if (hosts.empty()) throw std::invalid_argument("a sandbox's certificate authority needs at least one host");
    Key key = new_key();
    Cert cert = new_cert(common_name, key.get(), kYear);
    must(X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())) == 1, "name the issuer");
    std::string permitted = "critical";
    for (const auto &h : hosts) permitted += ",permitted;DNS:" + (h.rfind("*.", 0) == 0 ? h.substr(2) : h);
    // No address at all: a DNS-only constraint would leave IP alternative names unconstrained.
    permitted += ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::";
    add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
    add_extension(cert.get(), cert.get(), NID_name_constraints, permitted);
    must(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "sign the CA certificate");
    return {cert_pem(cert.get()), key_pem(key.get())};
}

struct LeafIssuer::Keys {
    Cert ca;
    Key ca_key, leaf_key;  // one key for every leaf: they are the same proxy
    std::string ca_pem, leaf_key_pem;
};

LeafIssuer::LeafIssuer(const std::string &ca_cert_pem, const std::string &ca_key_pem) : keys_(std::make_unique<Keys>()) {
    Bio cert_bio(BIO_new_mem_buf(ca_cert_pem.data(), static_cast<int>(ca_cert_pem.size())));
    Bio key_bio(BIO_new_mem_buf(ca_key_pem.data(), static_cast<int>(ca_key_pem.size())));
    must(cert_bio && key_bio, "read its PEMs");
    keys_->ca.reset(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
    keys_->ca_key.reset(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
    must(keys_->ca && keys_->ca_key, "load its certificate and key");
    must(X509_check_private_key(keys_->ca.get(), keys_->ca_key.get()) == 1, "match its key to its certificate");
    keys_->leaf_key = new_key();
    keys_->ca_pem = ca_cert_pem;
    keys_->leaf_key_pem = key_pem(keys_->leaf_key.get());
}

LeafIssuer::~LeafIssuer() = default;

LeafIssuer::Leaf LeafIssuer::leaf_for(const std::string &host) {
    // Only a DNS name's characters: the name goes into OpenSSL's extension syntax, where a ',' would add
    // another alternative name.
    if (host.empty() || host.size() > 253 || host.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-_") != std::string::npos)
        throw std::invalid_argument("'" + host + "' is not a host name a leaf can be issued for");
    const std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = leaves_.find(host); it != leaves_.end()) return it->second;
    X509 *ca = keys_->ca.get();
    // As long as the CA (a leaf outliving its issuer would only fail later).
    const ASN1_TIME *ca_end = X509_get0_notAfter(ca);
    Cert cert = new_cert(host, keys_->leaf_key.get(), kYear);
    must(X509_set1_notAfter(cert.get(), ca_end) == 1 && X509_set_issuer_name(cert.get(), X509_get_subject_name(ca)) == 1, "fill a leaf");
    add_extension(cert.get(), ca, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), ca, NID_key_usage, "critical,digitalSignature");
    add_extension(cert.get(), ca, NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), ca, NID_subject_alt_name, "DNS:" + host);
    add_extension(cert.get(), ca, NID_authority_key_identifier, "keyid:always");
    must(X509_sign(cert.get(), keys_->ca_key.get(), EVP_sha256()) > 0, "sign a leaf");
    Leaf leaf{cert_pem(cert.get()) + keys_->ca_pem, keys_->leaf_key_pem};
    if (order_.size() >= kMaxLeaves) {
        leaves_.erase(order_.front());
        order_.erase(order_.begin());
    }
    order_.push_back(host);
    leaves_.emplace(host, leaf);
    return leaf;
}

}  // namespace sandbox
