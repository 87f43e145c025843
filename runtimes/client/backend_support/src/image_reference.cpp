#include "actionhost/runtime_support/image_reference.hpp"

#include <stdexcept>

namespace actionhost::runtime_support {

std::string ImageReference::from_image() const {
    return (registry == "docker.io" ? "" : registry + "/") + path;
}

ImageReference parse_image_reference(const std::string &image) {
    if (image.empty() || image.find_first_of(" \t\n") != std::string::npos)
        throw std::invalid_argument("not an image reference: '" + image + "'");
    ImageReference r;
    std::string rest = image;
    if (const size_t at = rest.find('@'); at != std::string::npos) {
        r.digest = rest.substr(at + 1);
        rest = rest.substr(0, at);
    }
    const size_t slash = rest.find('/');
    const std::string first = slash == std::string::npos ? "" : rest.substr(0, slash);
    if (!first.empty() && (first.find('.') != std::string::npos || first.find(':') != std::string::npos || first == "localhost")) {
        r.registry = first;
        rest = rest.substr(slash + 1);
    } else {
        r.registry = "docker.io";
    }
    if (const size_t colon = rest.rfind(':'); colon != std::string::npos && rest.find('/', colon) == std::string::npos) {
        r.tag = rest.substr(colon + 1);
        rest = rest.substr(0, colon);
    }
    if (rest.empty()) throw std::invalid_argument("not an image reference: '" + image + "'");
    if (r.registry == "docker.io" && rest.find('/') == std::string::npos) rest = "library/" + rest;
    r.path = rest;
    if (r.tag.empty() && r.digest.empty()) r.tag = "latest";
    return r;
}

}  // namespace actionhost::runtime_support
