// A message digest with OpenSSL's EVP interface, fed piece by piece, in hex: SHA-256 for OCI content
// addresses (blobs, manifests), MD5 where a peer's format asks for it (OpenHands' image tags). Header
// only: whoever includes it links OpenSSL::Crypto.
//
// Threads: one object per thread.
#pragma once

#include <openssl/evp.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace actionhost::common {

class Digest {
  public:
    static Digest sha256() { return Digest(EVP_sha256()); }
    static Digest md5() { return Digest(EVP_md5()); }
    Digest(Digest &&o) noexcept : ctx_(o.ctx_) { o.ctx_ = nullptr; }
    Digest &operator=(Digest &&) = delete;
    Digest(const Digest &) = delete;
    ~Digest() { EVP_MD_CTX_free(ctx_); }

    void update(const void *data, size_t size) { EVP_DigestUpdate(ctx_, data, size); }
    void update(std::string_view text) { update(text.data(), text.size()); }
    // The digest of everything fed so far, lower-case hex. Once: the object is spent afterwards.
    std::string hex() {
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned len = 0;
        EVP_DigestFinal_ex(ctx_, d, &len);
        static const char *const digits = "0123456789abcdef";
        std::string out;
        for (unsigned i = 0; i < len; ++i) {
            out += digits[d[i] >> 4];
            out += digits[d[i] & 15];
        }
        return out;
    }

  private:
    explicit Digest(const EVP_MD *md) : ctx_(EVP_MD_CTX_new()) {
        if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, md, nullptr) != 1) throw std::runtime_error("cannot start a digest");
    }
    EVP_MD_CTX *ctx_;
};

// SHA-256 of `bytes` at once, lower-case hex (the audit chain's entry hashes, fingerprints of keys).
inline std::string sha256_hex(std::string_view bytes) {
    Digest d = Digest::sha256();
    d.update(bytes);
    return d.hex();
}

}  // namespace actionhost::common
