#include "workspace_dir.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sandbox {

int open_workspace(const std::string &path) {
    struct open_how how{};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;  // a path handle: no read permission needed to check it
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const int fd = static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
    if (fd >= 0) return fd;
    const int e = errno;
    if (e == ELOOP)
        throw std::runtime_error("refusing the workspace " + path +
                                 ": it passes through a symbolic link (a part of the path was replaced by one since it was resolved)");
    throw std::runtime_error("cannot open the workspace " + path + ": " + std::strerror(e));
}

DirIdentity identity_of(int fd, const std::string &path) {
    struct stat st{};
    if (::fstat(fd, &st) != 0) throw std::runtime_error("cannot read the workspace " + path + ": " + std::strerror(errno));
    return {st.st_dev, st.st_ino};
}

}  // namespace sandbox
