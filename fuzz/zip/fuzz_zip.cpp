// An uploaded archive as unzip_safely sees it: the bytes in a file, unpacked into a fresh destination
// (small limits, so a bomb is refused quickly). Also checks the promise that nothing escapes: after any
// input, the only files below the work directory are inside the destination.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
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

// Poco reads a ZIP64 end-of-central-directory record by allocating the size the record declares before
// reading it. In production an impossible size throws std::bad_alloc and a large one a short-read
// error, both caught by unzip_safely ("not a valid zip archive: ..."; unit test
// Unzip.Zip64RecordDeclaringAHugeSizeIsRefused). Under ASan, and under libFuzzer's malloc limit,
// the same allocation is fatal, so such inputs (a record claiming more bytes than the whole input)
// are skipped here instead of ending the run. Input kept: corpus/regression-zip64-record-size.zip.
static bool declares_zip64_record_beyond_input(const uint8_t *data, size_t size) {
    static const uint8_t sig[4] = {'P', 'K', 6, 6};
    for (size_t i = 0; i + 12 <= size; ++i) {
        if (std::memcmp(data + i, sig, 4) != 0) continue;
        uint64_t declared = 0;
        for (int b = 7; b >= 0; --b) declared = (declared << 8) | data[i + 4 + static_cast<size_t>(b)];
        if (declared > size) return true;
    }
    return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace actionhost::host;
    if (declares_zip64_record_beyond_input(data, size)) return 0;
    const fs::path archive = work_dir() / "in.zip", dest = work_dir() / "dest";
    {
        std::ofstream out(archive, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    std::error_code ec;
    fs::create_directory(dest, ec);
    const std::string why = unzip_safely(archive.string(), dest.string(), UnzipLimits{.max_total_bytes = 1u << 20, .max_entries = 200});
    for (const auto &e : fs::directory_iterator(work_dir(), ec))
        if (e.path() != archive && e.path() != dest) std::abort();  // something was written outside dest
    if (!why.empty()) {
        for (const auto &e : fs::directory_iterator(dest, ec)) (void)e, std::abort();  // refused, yet dest changed
    }
    fs::remove_all(dest, ec);
    return 0;
}
