#include "actionhost/runtime_support/url_encode.hpp"

#include <Poco/URI.h>

namespace actionhost::runtime_support {

std::string url_encode(const std::string &text) {
    std::string out;
    Poco::URI::encode(text, "!#$&'()*+,/:;=?@[]", out);
    return out;
}

}  // namespace actionhost::runtime_support
