#include "workspace_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <actionhost/common/open_without_links.hpp>

namespace sandbox {

int open_workspace(const std::string &path) {
    // A path handle: no read permission is needed to check it.
    const int fd = actionhost::common::open_without_links(AT_FDCWD, path, O_PATH | O_DIRECTORY);
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
