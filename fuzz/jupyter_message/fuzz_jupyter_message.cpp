// Frames from a kernel as decode_message receives them. Input: byte 0 picks the signer (odd: HMAC key
// "fuzz-key", even: signing off, so most inputs reach the JSON parts); the rest is split into frames at
// each 0x1E byte.
#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/message.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace actionhost::jupyter;
    if (size == 0) return 0;
    static const HmacSigner keyed("fuzz-key"), open("");
    const HmacSigner &signer = (data[0] & 1) ? keyed : open;
    const std::string_view rest(reinterpret_cast<const char *>(data) + 1, size - 1);
    std::vector<std::string_view> frames;
    size_t start = 0;
    while (true) {
        const size_t sep = rest.find('\x1e', start);
        frames.push_back(rest.substr(start, sep == std::string_view::npos ? std::string_view::npos : sep - start));
        if (sep == std::string_view::npos) break;
        start = sep + 1;
    }
    auto r = decode_message(frames, signer);
    if (r) {
        (void)r.value().msg_type();
        (void)r.value().msg_id();
        (void)r.value().parent_msg_id();
        (void)encode_message(r.value(), signer);
    }
    return 0;
}
