#include "zip64_record_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace actionhost::common::archive {

namespace {
constexpr char kZip64RecordSignature[4] = {'P', 'K', 6, 6};
constexpr std::streamsize kRecordSizeField = 8;
}  // namespace

Zip64RecordGuard::Zip64RecordGuard(const std::string &path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = static_cast<uint64_t>(st.st_size);
}

Zip64RecordGuard::~Zip64RecordGuard() {
    if (fd_ >= 0) ::close(fd_);
}

std::streamsize Zip64RecordGuard::read_at(char *s, std::streamsize n) {
    if (fd_ < 0 || !refused_.empty() || n <= 0) return 0;
    std::streamsize done = 0;
    while (done < n) {
        const ssize_t r = ::pread(fd_, s + done, static_cast<size_t>(n - done), static_cast<off_t>(pos_));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        done += r;
        pos_ += static_cast<uint64_t>(r);
    }
    return done;
}

std::streamsize Zip64RecordGuard::xsgetn(char *s, std::streamsize n) {
    const bool size_field = after_signature_ && n == kRecordSizeField;
    const std::streamsize got = read_at(s, n);
    after_signature_ = got == 4 && n == 4 && std::memcmp(s, kZip64RecordSignature, 4) == 0;
    if (!size_field) return got;
    uint64_t declared = 0;
    for (int b = 7; b >= 0; --b) declared = (declared << 8) | static_cast<unsigned char>(b < got ? s[b] : 0);
    const uint64_t remaining = size_ - pos_;
    if (got < kRecordSizeField)
        refused_ = "a ZIP64 end-of-central-directory record is cut off in its size field";
    else if (declared > remaining)
        refused_ = "a ZIP64 end-of-central-directory record declares " + std::to_string(declared) + " bytes, but only " +
                   std::to_string(remaining) + " follow it";
    else
        return got;
    // Poco uses what lands in its buffer whatever the count says (a short read leaves the rest of a
    // huge size in place): leave it a size of 0, and the stream ends here.
    std::memset(s, 0, static_cast<size_t>(n));
    pos_ = size_;
    return 0;
}

Zip64RecordGuard::int_type Zip64RecordGuard::underflow() {
    char c = 0;
    const uint64_t at = pos_;
    if (read_at(&c, 1) != 1) return traits_type::eof();
    pos_ = at;  // peek only
    return traits_type::to_int_type(c);
}

Zip64RecordGuard::int_type Zip64RecordGuard::uflow() {
    char c = 0;
    after_signature_ = false;
    if (read_at(&c, 1) != 1) return traits_type::eof();
    return traits_type::to_int_type(c);
}

Zip64RecordGuard::pos_type Zip64RecordGuard::seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) {
    int64_t base = dir == std::ios_base::beg ? 0 : dir == std::ios_base::cur ? static_cast<int64_t>(pos_) : static_cast<int64_t>(size_);
    const int64_t target = base + static_cast<int64_t>(off);
    if (target < 0) return pos_type(off_type(-1));
    if (static_cast<uint64_t>(target) != pos_) after_signature_ = false;  // tellg() keeps the pairing
    pos_ = static_cast<uint64_t>(target);
    return pos_type(static_cast<off_type>(pos_));
}

Zip64RecordGuard::pos_type Zip64RecordGuard::seekpos(pos_type pos, std::ios_base::openmode which) {
    return seekoff(off_type(pos), std::ios_base::beg, which);
}

}  // namespace actionhost::common::archive
