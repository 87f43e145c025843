// Incompressible bench payloads: what a pull, a snapshot or a download really moves.
#pragma once

#include <cstddef>
#include <string>

namespace actionhost::bench {

// Writes `bytes` of pseudo-random data (a fixed seed: the same bytes every run) into `path`.
void write_random_file(const std::string &path, size_t bytes);

}  // namespace actionhost::bench
