#include "workspace_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <actionhost/common/io/unique_fd.hpp>

namespace actionhost::browser {

using common::io::UniqueFd;

namespace {

// The failure of the last system call, with its errno.
auto errno_failure(const std::string &what) { return common::fail(what + ": " + std::strerror(errno), errno); }

// The directory, created if missing, opened without following a link.
common::Result<UniqueFd> open_dir(const std::string &dir, const std::optional<common::UserSwitch> &owner) {
    if (::mkdir(dir.c_str(), 0755) == 0 && owner) (void)!::lchown(dir.c_str(), owner->uid, owner->gid);
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return errno_failure("cannot open " + dir + (errno == ELOOP || errno == ENOTDIR ? " (a link or not a directory)" : ""));
    return fd;
}

// A new regular file `name` in `dir_fd`, replacing a regular file of that name.
common::Result<UniqueFd> create_file(int dir_fd, const std::string &dir, const std::string &name,
                                     const std::optional<common::UserSwitch> &owner) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        return common::fail("not a file name: " + name);
    struct stat st{};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode)) return common::fail(dir + "/" + name + " is there and is not a regular file");
        if (::unlinkat(dir_fd, name.c_str(), 0) != 0) return errno_failure("cannot replace " + dir + "/" + name);
    }
    UniqueFd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd) return errno_failure("cannot create " + dir + "/" + name);
    if (owner && ::fchown(fd.get(), owner->uid, owner->gid) != 0) return errno_failure("cannot give " + dir + "/" + name + " to its user");
    return fd;
}

common::Status write_all(int fd, std::string_view content, const std::string &shown) {
    for (size_t done = 0; done < content.size();) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return errno_failure("cannot write " + shown);
        done += static_cast<size_t>(n);
    }
    return common::ok();
}

// The new file `name` in `dir` (both as create_file and open_dir make them).
common::Result<UniqueFd> new_workspace_file(const std::string &dir, const std::string &name,
                                            const std::optional<common::UserSwitch> &owner) {
    auto d = open_dir(dir, owner);
    if (!d) return d.as_failure();
    return create_file(d.value().get(), dir, name, owner);
}

}  // namespace

common::Result<std::string> write_workspace_file(const std::string &dir, const std::string &name, std::string_view content,
                                                 const std::optional<common::UserSwitch> &owner) {
    auto f = new_workspace_file(dir, name, owner);
    if (!f) return f.as_failure();
    const std::string path = dir + "/" + name;
    if (auto written = write_all(f.value().get(), content, path); !written) return written.as_failure();
    return path;
}

common::Result<UniqueFd> open_own_file(const std::string &dir, const std::string &name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        return common::fail("not a file name: " + name);
    UniqueFd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!d) return errno_failure("cannot open " + dir + (errno == ELOOP || errno == ENOTDIR ? " (a link or not a directory)" : ""));
    UniqueFd f(::openat(d.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat st{};
    if (!f || ::fstat(f.get(), &st) != 0) return errno_failure("cannot read " + dir + "/" + name);
    if (!S_ISREG(st.st_mode)) return common::fail(dir + "/" + name + " is not a regular file");
    if (st.st_nlink != 1) return common::fail(dir + "/" + name + " has another name (a hard link): refused");
    return f;
}

common::Result<std::string> copy_into_workspace(int source, const std::string &shown, const std::string &dir, const std::string &name,
                                                const std::optional<common::UserSwitch> &owner) {
    auto f = new_workspace_file(dir, name, owner);
    if (!f) return f.as_failure();
    const std::string path = dir + "/" + name;
    char buf[65536];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(source, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno_failure("cannot read " + shown);
        if (n == 0) break;
        at += n;
        if (auto written = write_all(f.value().get(), std::string_view(buf, static_cast<size_t>(n)), path); !written)
            return written.as_failure();
    }
    return path;
}

}  // namespace actionhost::browser
