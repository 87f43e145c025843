#include "files/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace actionhost::host {

std::optional<FileOwnership> ownership_of(const std::string &path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileOwnership{static_cast<mode_t>(st.st_mode & 07777), st.st_uid, st.st_gid};
}

common::Status atomic_write(const std::string &path, const std::string &content, const FileOwnership &own) {
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string tmpl = dir + "/." + base + ".ahtmp.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    const int fd = ::mkstemp(buf.data());
    if (fd < 0) return common::fail(std::strerror(errno), errno);
    const std::string tmp = buf.data();
    auto fail = [&](int err) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return common::fail(std::strerror(err), err);
    };
    size_t off = 0;
    while (off < content.size()) {
        const ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(errno);
        }
        off += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) return fail(errno);
    if (::fchmod(fd, own.mode) != 0) return fail(errno);
    if (::geteuid() == 0 && ::fchown(fd, own.uid, own.gid) != 0) return fail(errno);
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return common::fail(std::strerror(err), err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return common::fail(std::strerror(err), err);
    }
    return common::ok();
}

}  // namespace actionhost::host
