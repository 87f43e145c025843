#include "actionhost/common/inherited_fds.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace actionhost::common {

void close_on_exec_from(int first) {
    if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
    // Kernels before 5.11: one fcntl per possible descriptor (no allocation, no /proc walk, nothing that
    // is not async-signal-safe); the host never raises its descriptor limit past 65536.
    for (int fd = first; fd < 65536; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

}  // namespace actionhost::common
