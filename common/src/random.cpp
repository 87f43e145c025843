#include "actionhost/common/random.hpp"

#include <sys/random.h>

#include <boost/algorithm/hex.hpp>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace actionhost::common {

void random_bytes(void *out, size_t size) {
    auto *bytes = static_cast<unsigned char *>(out);
    for (size_t got = 0; got < size;) {
        const ssize_t n = getrandom(bytes + got, size - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(std::string("cannot get random bytes: ") + std::strerror(errno));
        got += static_cast<size_t>(n);
    }
}

std::string random_hex(size_t bytes) {
    std::string raw(bytes, '\0');
    random_bytes(raw.data(), bytes);
    std::string out;
    out.reserve(2 * bytes);
    boost::algorithm::hex_lower(raw.begin(), raw.end(), std::back_inserter(out));
    return out;
}

std::string random_uuid4() {
    unsigned char raw[16];
    random_bytes(raw, sizeof raw);
    raw[6] = static_cast<unsigned char>((raw[6] & 0x0F) | 0x40);  // version 4
    raw[8] = static_cast<unsigned char>((raw[8] & 0x3F) | 0x80);  // the RFC 4122 variant
    std::string hex;
    boost::algorithm::hex_lower(std::begin(raw), std::end(raw), std::back_inserter(hex));
    return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace actionhost::common
