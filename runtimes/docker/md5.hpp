// MD5 with OpenSSL's EVP interface, hex output (OpenHands' image tags are MD5-based).
#pragma once

#include <openssl/evp.h>

#include <string>

namespace docker {

class Md5 {
  public:
    Md5() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_md5(), nullptr); }
    ~Md5() { EVP_MD_CTX_free(ctx_); }
    Md5(const Md5 &) = delete;
    Md5 &operator=(const Md5 &) = delete;
    void update(const void *data, size_t size) { EVP_DigestUpdate(ctx_, data, size); }
    void update(const std::string &s) { update(s.data(), s.size()); }
    std::string hex() {
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned len = 0;
        EVP_DigestFinal_ex(ctx_, d, &len);
        static const char *digits = "0123456789abcdef";
        std::string out;
        for (unsigned i = 0; i < len; ++i) {
            out += digits[d[i] >> 4];
            out += digits[d[i] & 15];
        }
        return out;
    }

  private:
    EVP_MD_CTX *ctx_;
};

}  // namespace docker
