#include "actionhost/common/cidr.hpp"

#include <arpa/inet.h>

#include <algorithm>

namespace actionhost::common {

namespace {

// Clears every bit after the first `prefix` of `bytes` (of `len` bytes).
void mask(std::array<uint8_t, 16> &bytes, int prefix, int len) {
    for (int i = 0; i < len; ++i) {
        const int keep = std::max(0, std::min(8, prefix - 8 * i));
        bytes[i] &= static_cast<uint8_t>(keep == 0 ? 0 : 0xff << (8 - keep));
    }
}

}  // namespace

std::string Cidr::text() const {
    char buf[INET6_ADDRSTRLEN] = {};
    inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof(buf));
    return std::string(buf) + "/" + std::to_string(prefix);
}

bool Cidr::contains(const Cidr &other) const {
    if (v6 != other.v6 || other.prefix < prefix) return false;
    std::array<uint8_t, 16> masked = other.bytes;
    mask(masked, prefix, v6 ? 16 : 4);
    return masked == bytes;
}

std::optional<Cidr> parse_cidr(const std::string &text) {
    Cidr c;
    const auto slash = text.find('/');
    const std::string address = text.substr(0, slash);
    c.v6 = address.find(':') != std::string::npos;
    if (inet_pton(c.v6 ? AF_INET6 : AF_INET, address.c_str(), c.bytes.data()) != 1) return std::nullopt;
    const int max = c.v6 ? 128 : 32;
    c.prefix = max;
    if (slash != std::string::npos) {
        const std::string len = text.substr(slash + 1);
        if (len.empty() || len.size() > 3 || len.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
        c.prefix = std::stoi(len);
        if (c.prefix > max) return std::nullopt;
    }
    mask(c.bytes, c.prefix, c.v6 ? 16 : 4);
    return c;
}

}  // namespace actionhost::common
