#include "file_access.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::agent_skills {

namespace {

using common::io::UniqueFd;

bool write_all(int fd, const std::string &bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        off += static_cast<size_t>(n);
    }
    return true;
}

// Puts the complete temp file in place of `path` atomically, without the rename that replaces a file:
// ext4 (auto_da_alloc) starts writing the new file's data out synchronously on such a rename, its
// stand-in for the fsync the writer skipped, which costs milliseconds on a busy disk. An exchange of
// the two names is just as atomic for every reader and against a crash of any process; the old content,
// now under the temp name, is then unlinked. False (nothing changed) where exchanges are unsupported.
bool swap_in(const std::string &tmp, const std::string &path) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0) return false;
    ::unlink(tmp.c_str());
    return true;
}

common::Status write_in_place(const std::string &path, const std::string &bytes, bool durable) {
    UniqueFd f(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY));
    if (f.get() < 0 || !write_all(f.get(), bytes) || (durable && ::fsync(f.get()) != 0)) return common::fail(os_error_text(errno, path), errno);
    return common::ok();
}

}  // namespace

PathPolicy editor_path_policy(const std::string &roots_spec) { return PathPolicy(roots_spec, "this editor may access"); }

FileInfo stat_path(const std::string &path) {
    FileInfo info;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return info;
    info.size = st.st_size;
    info.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode)) info.kind = FileKind::regular;
    else if (S_ISDIR(st.st_mode)) info.kind = FileKind::directory;
    else {
        info.kind = FileKind::other;
        info.other_kind = S_ISCHR(st.st_mode) ? "character device"
                          : S_ISBLK(st.st_mode) ? "block device"
                          : S_ISFIFO(st.st_mode) ? "FIFO"
                          : S_ISSOCK(st.st_mode) ? "socket"
                                                 : "special file";
    }
    return info;
}

common::Result<std::string> read_bytes(const std::string &path, size_t max_bytes) {
    UniqueFd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (f.get() < 0) return common::fail(os_error_text(errno, path), errno);
    struct stat st {};
    if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        const int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return common::fail(os_error_text(err, path), err);
    }
    size_t want = static_cast<size_t>(st.st_size);
    if (max_bytes != 0 && want > max_bytes) want = max_bytes;
    std::string out;
    out.resize(want);
    size_t got = 0;
    while (got < want) {
        const ssize_t n = ::read(f.get(), out.data() + got, want - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return common::fail(os_error_text(errno, path), errno);
        }
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    out.resize(got);
    return out;
}

common::Status write_atomic(const std::string &path_in, const std::string &bytes, bool durable) {
    // Write through symlinks to their target, as open('w') would; renaming over the link would replace
    // the link itself.
    std::string path = path_in;
    {
        char buf[PATH_MAX];
        if (::realpath(path_in.c_str(), buf) != nullptr) path = buf;
    }
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        const int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return common::fail(os_error_text(err, path_in), err);
    }
    // A missing parent directory is an error, not created: the editor's `create` answers
    // `Ran into [Errno 2] No such file or directory: '<p>' ...` there, as openhands-aci's open('w') does.
    const std::filesystem::path fs_path(path);
    const std::string dir = fs_path.parent_path().string();
    std::string tmpl = dir + "/." + fs_path.filename().string() + ".ah-edit.XXXXXX";
    UniqueFd tmp(::mkostemp(tmpl.data(), O_CLOEXEC));
    if (tmp.get() < 0) {
        if (exists) return write_in_place(path, bytes, durable);
        return common::fail(os_error_text(errno, path_in), errno);
    }
    auto fail = [&](int err) {
        ::unlink(tmpl.c_str());
        return common::fail(os_error_text(err, path_in), err);
    };
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid())) {
        if (::fchown(tmp.get(), st.st_uid, st.st_gid) != 0) {
            // We may not give the file away; keep owner by rewriting in place instead.
            ::unlink(tmpl.c_str());
            return write_in_place(path, bytes, durable);
        }
    }
    if (::fchmod(tmp.get(), mode) != 0) return fail(errno);
    if (!write_all(tmp.get(), bytes)) return fail(errno);
    if (durable && ::fsync(tmp.get()) != 0) return fail(errno);
    if (exists && !durable && swap_in(tmpl, path)) return common::ok();
    if (::rename(tmpl.c_str(), path.c_str()) != 0) return fail(errno);
    return common::ok();
}

bool editor_fsync_enabled(const char *setting) {
    if (setting == nullptr) return false;
    const std::string v = setting;
    return v == "1" || v == "true" || v == "True" || v == "yes";
}

}  // namespace actionhost::agent_skills
