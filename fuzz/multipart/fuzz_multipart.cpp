// An /upload_file request as the endpoint receives it. Input: the Content-Type header value, a newline,
// then the body. receive_upload streams the "file" part into a private temp directory (removed after each
// input), exactly as the endpoint does into its destination.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "http/upload_receiver.hpp"

namespace {
const std::string &work_dir() {
    static const std::string dir = [] {
        char tmpl[] = "/tmp/ahfuzz-multipart-XXXXXX";
        const char *d = ::mkdtemp(tmpl);
        if (d == nullptr) std::abort();
        return std::string(d);
    }();
    return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace actionhost::host;
    const std::string input(reinterpret_cast<const char *>(data), size);
    const size_t nl = input.find('\n');
    if (nl == std::string::npos) return 0;
    std::istringstream body(input.substr(nl + 1));
    {
        ReceivedUpload got;
        (void)receive_upload(input.substr(0, nl), body, work_dir(), 4096, got);
        if (got.size > 4096 && !got.too_large) std::abort();  // the limit must hold
    }
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(work_dir(), ec)) std::filesystem::remove_all(e.path(), ec);
    return 0;
}
