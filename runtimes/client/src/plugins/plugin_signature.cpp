#include "plugins/plugin_signature.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include <actionhost/common/base64.hpp>
#include <actionhost/common/digest.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::client::plugins {

namespace {

struct KeyFreer {
    void operator()(EVP_PKEY *k) const { EVP_PKEY_free(k); }
};
struct BioFreer {
    void operator()(BIO *b) const { BIO_free(b); }
};
struct MdFreer {
    void operator()(EVP_MD_CTX *c) const { EVP_MD_CTX_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFreer>;

std::string openssl_reason() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "no PEM key in it";
    char text[256];
    ERR_error_string_n(e, text, sizeof text);
    return text;
}

// The Ed25519 key in the PEM file `path`: private when `want_private`, else public (a private key's
// file gives its public half too).
Key read_key(const std::string &path, bool want_private) {
    std::unique_ptr<BIO, BioFreer> bio(BIO_new_file(path.c_str(), "r"));
    if (!bio) throw std::runtime_error("cannot read the key " + path + ": " + openssl_reason());
    Key key(want_private ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    if (!key && !want_private) {  // a private key's file names the public key as well
        BIO_reset(bio.get());
        ERR_clear_error();
        key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
    }
    if (!key)
        throw std::runtime_error("the key " + path + " is no PEM " + (want_private ? "private" : "public") + " key (" + openssl_reason() +
                                 "); make one with: openssl genpkey -algorithm ed25519 -out key.pem");
    if (EVP_PKEY_id(key.get()) != EVP_PKEY_ED25519) throw std::runtime_error("the key " + path + " is not an Ed25519 key");
    return key;
}

std::string key_id(EVP_PKEY *key) {
    unsigned char raw[32];
    size_t len = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key, raw, &len) != 1) throw std::runtime_error("cannot read a public key: " + openssl_reason());
    common::Digest sha = common::Digest::sha256();
    sha.update(raw, len);
    return "sha256:" + sha.hex();
}

}  // namespace

std::string key_id_of_file(const std::string &pem) { return key_id(read_key(pem, false).get()); }

std::string sign_digest(const std::string &digest, const std::string &private_key_pem) {
    Key key = read_key(private_key_pem, true);
    const std::string message = kSignaturePrefix + digest;
    std::unique_ptr<EVP_MD_CTX, MdFreer> ctx(EVP_MD_CTX_new());
    unsigned char sig[64];
    size_t sig_len = sizeof sig;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
        EVP_DigestSign(ctx.get(), sig, &sig_len, reinterpret_cast<const unsigned char *>(message.data()), message.size()) != 1)
        throw std::runtime_error("cannot sign with " + private_key_pem + ": " + openssl_reason());
    const nlohmann::json doc = {{"signed", digest},
                                {"algorithm", "ed25519"},
                                {"key_id", key_id(key.get())},
                                {"signature", common::base64_encode(std::string_view(reinterpret_cast<const char *>(sig), sig_len))}};
    return common::dump_json(doc);
}

VerifiedSignature verify_signature(const std::string &document, const std::string &digest, const std::vector<std::string> &public_key_pems) {
    const auto doc = nlohmann::json::parse(document, nullptr, false);
    if (!doc.is_object() || !doc.contains("signature") || !doc["signature"].is_string() || !doc.contains("signed") || !doc["signed"].is_string())
        throw std::runtime_error("its signature document is malformed");
    if (doc.value("algorithm", "") != "ed25519") throw std::runtime_error("its signature is not ed25519 but \"" + doc.value("algorithm", "") + "\"");
    if (doc["signed"].get<std::string>() != digest)
        throw std::runtime_error("its signature signs " + doc["signed"].get<std::string>() + ", not the artifact " + digest);
    const auto sig = common::base64_decode(doc["signature"].get<std::string>());
    if (!sig || sig->size() != 64) throw std::runtime_error("its signature is not 64 bytes of base64");
    const std::string message = kSignaturePrefix + digest;
    std::string ids;
    for (const auto &path : public_key_pems) {
        Key key = read_key(path, false);
        const std::string id = key_id(key.get());
        ids += (ids.empty() ? "" : ", ") + id;
        std::unique_ptr<EVP_MD_CTX, MdFreer> ctx(EVP_MD_CTX_new());
        if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
            throw std::runtime_error("cannot verify with " + path + ": " + openssl_reason());
        const int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char *>(sig->data()), sig->size(),
                                        reinterpret_cast<const unsigned char *>(message.data()), message.size());
        ERR_clear_error();
        if (ok == 1) return {id, path};
    }
    throw std::runtime_error("its signature (by key " + doc.value("key_id", std::string("?")) + ") verifies with none of the required keys (" + ids + ")");
}

}  // namespace actionhost::client::plugins
