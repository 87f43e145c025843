#include "workspace_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <actionhost/common/open_without_links.hpp>

namespace sandbox {

WorkspaceDir::WorkspaceDir(const std::string &path) {
    fd_ = actionhost::common::open_without_links(AT_FDCWD, path, O_PATH | O_DIRECTORY);
    if (fd_ < 0) {
        const int e = errno;
        if (e == ELOOP)
            throw std::runtime_error("refusing the workspace " + path +
                                     ": it passes through a symbolic link (a part of the path was replaced by one since it was resolved)");
        throw std::runtime_error("cannot open the workspace " + path + ": " + std::strerror(e));
    }
    struct stat st{};
    if (::fstat(fd_, &st) != 0) {
        const int e = errno;
        ::close(fd_);
        throw std::runtime_error("cannot read the workspace " + path + ": " + std::strerror(e));
    }
    identity_ = {st.st_dev, st.st_ino};
}

WorkspaceDir::~WorkspaceDir() { ::close(fd_); }

}  // namespace sandbox
