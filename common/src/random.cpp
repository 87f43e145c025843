#include "actionhost/common/random.hpp"

#include <sys/random.h>

#include <boost/algorithm/hex.hpp>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace actionhost::common {

std::string random_hex(size_t bytes) {
    std::string raw(bytes, '\0');
    for (size_t got = 0; got < bytes;) {
        const ssize_t n = getrandom(raw.data() + got, bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(std::string("cannot get random bytes: ") + std::strerror(errno));
        got += static_cast<size_t>(n);
    }
    std::string out;
    out.reserve(2 * bytes);
    boost::algorithm::hex_lower(raw.begin(), raw.end(), std::back_inserter(out));
    return out;
}

}  // namespace actionhost::common
