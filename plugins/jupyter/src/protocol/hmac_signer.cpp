#include "protocol/hmac_signer.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace actionhost::jupyter {

namespace {
constexpr char kHex[] = "0123456789abcdef";

std::string to_hex(const unsigned char *p, size_t n) {
    std::string out(n * 2, '0');
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = kHex[p[i] >> 4];
        out[2 * i + 1] = kHex[p[i] & 0xF];
    }
    return out;
}
}  // namespace

struct HmacSigner::State {
    EVP_MAC *mac = nullptr;
    EVP_MAC_CTX *prototype = nullptr;  // initialised with key and digest; duplicated per message
    ~State() {
        EVP_MAC_CTX_free(prototype);
        EVP_MAC_free(mac);
    }
};

HmacSigner::HmacSigner(std::string key) : key_(std::move(key)), state_(std::make_unique<State>()) {
    if (key_.empty()) return;
    state_->mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (state_->mac == nullptr) throw std::runtime_error("OpenSSL: HMAC is not available");
    state_->prototype = EVP_MAC_CTX_new(state_->mac);
    if (state_->prototype == nullptr) throw std::runtime_error("OpenSSL: cannot allocate an HMAC context");
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
    if (EVP_MAC_init(state_->prototype, reinterpret_cast<const unsigned char *>(key_.data()), key_.size(), params) != 1)
        throw std::runtime_error("OpenSSL: HMAC-SHA256 initialisation failed");
}

HmacSigner::~HmacSigner() = default;

std::string HmacSigner::sign(std::string_view header, std::string_view parent, std::string_view metadata,
                             std::string_view content) const {
    if (!enabled()) return "";
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_dup(state_->prototype);
    if (ctx == nullptr) throw std::runtime_error("OpenSSL: cannot duplicate the HMAC context");
    bool ok = true;
    for (std::string_view part : {header, parent, metadata, content})
        ok = ok && EVP_MAC_update(ctx, reinterpret_cast<const unsigned char *>(part.data()), part.size()) == 1;
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    size_t out_len = 0;
    ok = ok && EVP_MAC_final(ctx, out.data(), &out_len, out.size()) == 1;
    EVP_MAC_CTX_free(ctx);
    if (!ok) throw std::runtime_error("OpenSSL: HMAC-SHA256 failed");
    return to_hex(out.data(), out_len);
}

bool HmacSigner::verify(std::string_view signature, std::string_view header, std::string_view parent,
                        std::string_view metadata, std::string_view content) const {
    if (!enabled()) return true;
    const std::string expected = sign(header, parent, metadata, content);
    if (signature.size() != expected.size()) return false;
    std::string lowered(signature);
    for (char &c : lowered)
        if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    return CRYPTO_memcmp(lowered.data(), expected.data(), expected.size()) == 0;
}

}  // namespace actionhost::jupyter
