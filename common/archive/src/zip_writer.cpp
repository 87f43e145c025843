#include "actionhost/common/archive/zip_writer.hpp"

#include <minizip/zip.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <limits>
#include <vector>

namespace actionhost::common::archive {

namespace {

constexpr uLong kMadeByUnix = (3u << 8) | 20;  // Unix, spec 2.0 (Info-ZIP's version_made_by)

// The 0x5455 extended timestamp (flags: modification time only), the same locally and centrally. Its
// field is a signed 32-bit time: a time outside 1901-12-13 .. 2038-01-19 is clamped to the nearer end,
// never wrapped to another century.
std::string extended_timestamp(int64_t mtime) {
    std::string field = {'\x55', '\x54', '\x05', '\x00', '\x01'};
    const int64_t clamped = std::clamp<int64_t>(mtime, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    const auto t = static_cast<uint32_t>(static_cast<int32_t>(clamped));
    for (int b = 0; b < 4; ++b) field += static_cast<char>((t >> (8 * b)) & 0xff);
    return field;
}

zip_fileinfo file_info(uint32_t type_and_mode, int64_t mtime) {
    zip_fileinfo info{};
    const std::time_t t = static_cast<std::time_t>(mtime);
    std::tm tm{};
    localtime_r(&t, &tm);
    if (tm.tm_year < 80) tm = std::tm{.tm_sec = 0, .tm_min = 0, .tm_hour = 0, .tm_mday = 1, .tm_mon = 0, .tm_year = 80,
                                      .tm_wday = 0, .tm_yday = 0, .tm_isdst = 0, .tm_gmtoff = 0, .tm_zone = nullptr};
    info.tmz_date.tm_sec = static_cast<uInt>(tm.tm_sec);
    info.tmz_date.tm_min = static_cast<uInt>(tm.tm_min);
    info.tmz_date.tm_hour = static_cast<uInt>(tm.tm_hour);
    info.tmz_date.tm_mday = static_cast<uInt>(tm.tm_mday);
    info.tmz_date.tm_mon = static_cast<uInt>(tm.tm_mon);
    info.tmz_date.tm_year = static_cast<uInt>(tm.tm_year + 1900);
    info.dosDate = 0;  // from tmz_date
    info.external_fa = static_cast<uLong>(type_and_mode) << 16;
    if ((type_and_mode & S_IFMT) == S_IFDIR) info.external_fa |= 0x10;  // MS-DOS directory attribute, as Info-ZIP
    return info;
}

}  // namespace

struct ZipWriter::State {
    zipFile zip = nullptr;
    std::string path;
    ~State() {
        if (zip != nullptr) zipClose(zip, nullptr);
    }
};

ZipWriter::ZipWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
ZipWriter::~ZipWriter() = default;

Result<std::unique_ptr<ZipWriter>> ZipWriter::create(const std::string &path) {
    auto state = std::make_unique<State>();
    state->path = path;
    state->zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
    if (state->zip == nullptr) return fail("cannot create the archive " + path + ": " + std::strerror(errno));
    return std::unique_ptr<ZipWriter>(new ZipWriter(std::move(state)));
}

Status ZipWriter::add(const std::string &name, uint32_t type_and_mode, const ZipEntryAttributes &attributes, int fd,
                      std::string_view content, uint64_t size_hint) {
    if (state_->zip == nullptr) return fail("the archive " + state_->path + " is closed");
    if (name.empty() || name[0] == '/') return fail("cannot add the entry '" + name + "' to an archive: not a relative name");
    const zip_fileinfo info = file_info(type_and_mode, attributes.mtime);
    const std::string extra = extended_timestamp(attributes.mtime);
    const bool directory = (type_and_mode & S_IFMT) == S_IFDIR;
    const int zip64 = size_hint >= 0xffffffffull ? 1 : 0;
    if (zipOpenNewFileInZip4_64(state_->zip, name.c_str(), &info, extra.data(), static_cast<uInt>(extra.size()), extra.data(),
                                static_cast<uInt>(extra.size()), nullptr, directory ? 0 : Z_DEFLATED,
                                directory ? 0 : Z_DEFAULT_COMPRESSION, 0, -MAX_WBITS, DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY,
                                nullptr, 0, kMadeByUnix, 0, zip64) != ZIP_OK)
        return fail("cannot add " + name + " to the archive " + state_->path);
    auto write = [&](const char *data, size_t n) -> Status {
        if (zipWriteInFileInZip(state_->zip, data, static_cast<unsigned>(n)) != ZIP_OK)
            return fail("cannot write " + name + " into the archive " + state_->path);
        return ok();
    };
    Status written = ok();
    if (fd >= 0) {
        std::vector<char> buf(65536);
        // Bounded by the file's end: every round reads at least one byte or stops.
        for (;;) {
            const ssize_t n = ::read(fd, buf.data(), buf.size());
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                written = fail("cannot read " + name + ": " + std::strerror(errno));
                break;
            }
            if (n == 0) break;
            if (written = write(buf.data(), static_cast<size_t>(n)); !written) break;
        }
    } else if (!content.empty()) {
        written = write(content.data(), content.size());
    }
    const int closed = zipCloseFileInZip(state_->zip);
    if (!written) return written;
    if (closed != ZIP_OK) return fail("cannot write " + name + " into the archive " + state_->path);
    return ok();
}

Status ZipWriter::add_directory(const std::string &name, const ZipEntryAttributes &attributes) {
    const std::string dir = !name.empty() && name.back() == '/' ? name : name + "/";
    return add(dir, S_IFDIR | (attributes.mode & 07777), attributes, -1, {}, 0);
}

Status ZipWriter::add_file(const std::string &name, int fd, const ZipEntryAttributes &attributes) {
    struct stat st{};
    const uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    return add(name, S_IFREG | (attributes.mode & 07777), attributes, fd, {}, size);
}

Status ZipWriter::add_bytes(const std::string &name, std::string_view content, const ZipEntryAttributes &attributes) {
    return add(name, S_IFREG | (attributes.mode & 07777), attributes, -1, content, content.size());
}

Status ZipWriter::add_symlink(const std::string &name, const std::string &target, const ZipEntryAttributes &attributes) {
    if (target.empty()) return fail("cannot add the link " + name + ": it has no target");
    return add(name, S_IFLNK | 0777, attributes, -1, target, target.size());
}

Status ZipWriter::close() {
    if (state_->zip == nullptr) return fail("the archive " + state_->path + " is closed");
    const int closed = zipClose(state_->zip, nullptr);
    state_->zip = nullptr;
    if (closed != ZIP_OK) return fail("cannot write the archive " + state_->path);
    return ok();
}

}  // namespace actionhost::common::archive
