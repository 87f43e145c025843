// An uploaded archive as unzip_safely sees it: the bytes in a file, unpacked into a fresh destination
// (small limits, so a bomb is refused quickly). Also checks the promise that nothing escapes: after any
// input, the only files below the work directory are inside the destination.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "files/zip_files.hpp"

namespace fs = std::filesystem;

namespace {
const fs::path &work_dir() {
    static const fs::path dir = [] {
        std::string tmpl = (fs::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") + std::string("/ahfuzz-zip-XXXXXX");
        const char *d = ::mkdtemp(tmpl.data());
        if (d == nullptr) std::abort();
        return fs::path(d);
    }();
    return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace actionhost::host;
    const fs::path archive = work_dir() / "in.zip", dest = work_dir() / "dest";
    {
        std::ofstream out(archive, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    std::error_code ec;
    fs::create_directory(dest, ec);
    const auto unpacked = unzip_safely(archive.string(), dest.string(), UnzipLimits{.max_total_bytes = 1u << 20, .max_entries = 200});
    for (const auto &e : fs::directory_iterator(work_dir(), ec))
        if (e.path() != archive && e.path() != dest) std::abort();  // something was written outside dest
    if (!unpacked) {
        for (const auto &e : fs::directory_iterator(dest, ec)) (void)e, std::abort();  // refused, yet dest changed
    }
    fs::remove_all(dest, ec);
    return 0;
}
