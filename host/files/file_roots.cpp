#include "files/file_roots.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include <actionhost/common/open_without_links.hpp>
#include <actionhost/common/path_policy.hpp>
#include <actionhost/common/text.hpp>

namespace actionhost::host {

namespace {

common::PathPolicy &policy() {
    static common::PathPolicy p("", "");  // set once before the server starts, read-only afterwards
    return p;
}

}  // namespace

void configure_file_roots(const std::string &spec) {
    policy() = common::PathPolicy(spec, "the host may access", "ACTIONHOST_EDITOR_ROOTS");
}

common::Status file_access(const std::string &path) {
    if (path.find('\0') != std::string::npos) return common::fail("The path contains a NUL byte; nothing was done.");
    return policy().check(path);
}

common::Result<int> open_confined_regular_file(const std::string &path) {
    const auto os_error = [&path](int err) { return common::fail(common::os_error_text(err, path), err); };
    if (auto allowed = file_access(path); !allowed) return allowed.as_failure();
    char real[PATH_MAX];
    if (::realpath(path.c_str(), real) == nullptr) return os_error(errno);
    if (auto allowed = file_access(real); !allowed) return allowed.as_failure();  // changed since the first look
    const int fd = common::open_without_links(AT_FDCWD, real, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return os_error(errno == ELOOP ? ENOENT : errno);  // a link appeared on the way: the file we checked is gone
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return common::fail("The path " + path + " is not a regular file.");
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

}  // namespace actionhost::host
