#include "random_file.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <random>
#include <vector>

namespace actionhost::bench {

void write_random_file(const std::string &path, size_t bytes) {
    std::mt19937_64 rng(42);
    std::vector<uint64_t> block(1 << 17);
    std::ofstream out(path, std::ios::binary);
    for (size_t done = 0; done < bytes;) {
        for (auto &w : block) w = rng();
        const size_t n = std::min(bytes - done, block.size() * sizeof(uint64_t));
        out.write(reinterpret_cast<const char *>(block.data()), static_cast<std::streamsize>(n));
        done += n;
    }
}

}  // namespace actionhost::bench
