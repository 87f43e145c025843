#include "actionhost/common/open_without_links.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace actionhost::common {

int open_without_links(int dir_fd, const std::string &path, uint64_t flags) {
    open_how how{};
    how.flags = flags | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return static_cast<int>(::syscall(SYS_openat2, dir_fd, path.c_str(), &how, sizeof how));
}

}  // namespace actionhost::common
