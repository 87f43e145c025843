// `[sandbox] volumes` (as OpenHands' DockerRuntime reads it): "host:container[:mode]" comma list → Docker
// Binds. A non-absolute host part is a named volume; mode defaults to rw; "overlay" modes are not supported
// here.
#pragma once

#include <string>
#include <vector>

namespace docker {

// Throws std::invalid_argument naming the bad entry.
std::vector<std::string> parse_volumes(const std::string &spec);

}  // namespace docker
