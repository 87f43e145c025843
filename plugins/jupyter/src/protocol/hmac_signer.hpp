// HMAC-SHA256 message signatures of the Jupyter messaging protocol (5.3, "Wire protocol"): the hex digest of
// the key over header, parent_header, metadata and content, in that order. OpenSSL does the HMAC.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace actionhost::jupyter {

class HmacSigner {
  public:
    // An empty key disables signing, as the protocol allows (signature frame "").
    explicit HmacSigner(std::string key);
    ~HmacSigner();
    HmacSigner(const HmacSigner &) = delete;
    HmacSigner &operator=(const HmacSigner &) = delete;

    bool enabled() const { return !key_.empty(); }

    // Lower-case hex HMAC-SHA256 of the four parts concatenated ("" when signing is disabled).
    std::string sign(std::string_view header, std::string_view parent, std::string_view metadata,
                     std::string_view content) const;

    // Constant-time check of `signature` (hex, either case) against the parts. Always true when disabled.
    bool verify(std::string_view signature, std::string_view header, std::string_view parent,
                std::string_view metadata, std::string_view content) const;

  private:
    std::string key_;
    struct State;
    std::unique_ptr<State> state_;  // the fetched MAC algorithm, reused for every message
};

}  // namespace actionhost::jupyter
