#include "privileges.hpp"

#include <sys/capability.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sandbox {

namespace {

constexpr cap_value_t kDockerDefault[] = {CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FOWNER,           CAP_FSETID, CAP_KILL,
                                          CAP_SETGID,  CAP_SETUID,       CAP_SETPCAP,          CAP_NET_BIND_SERVICE,
                                          CAP_NET_RAW, CAP_SYS_CHROOT,   CAP_MKNOD,            CAP_AUDIT_WRITE,
                                          CAP_SETFCAP};

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

bool in_docker_default(cap_value_t cap) {
    for (cap_value_t c : kDockerDefault)
        if (c == cap) return true;
    return false;
}

}  // namespace

void limit_bounding_set(bool file_capabilities, bool raw_network) {
    const cap_value_t last = static_cast<cap_value_t>(cap_max_bits()) - 1;
    for (cap_value_t cap = 0; cap <= last; ++cap) {
        if (in_docker_default(cap) && (cap != CAP_SETFCAP || file_capabilities) && (cap != CAP_NET_RAW || raw_network)) continue;
        if (cap_drop_bound(cap) != 0 && errno != EINVAL) fail("drop capability " + std::to_string(cap) + " from the bounding set");
    }
    if (cap_reset_ambient() != 0 && errno != EINVAL) fail("clear the ambient capabilities");
}

void lock_down_pid1() {
    const cap_value_t last = static_cast<cap_value_t>(cap_max_bits()) - 1;
    for (cap_value_t cap = 0; cap <= last; ++cap)
        if (cap_drop_bound(cap) != 0 && errno != EINVAL) fail("drop capability " + std::to_string(cap) + " from the bounding set");
    if (cap_reset_ambient() != 0 && errno != EINVAL) fail("clear the ambient capabilities");
    cap_t none = cap_init();  // every set empty
    if (none == nullptr) fail("cap_init");
    const int rc = cap_set_proc(none);
    cap_free(none);
    if (rc != 0) fail("drop every capability of pid 1");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("set no_new_privs on pid 1");
    // After every credential change (those reset it): a non-dumpable process can be traced, and its
    // /proc/<pid>/mem, environ, fd, ... opened, only with CAP_SYS_PTRACE in the user namespace its
    // memory belongs to — the machine's, since pid 1 never called execve.
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) fail("make pid 1 non-dumpable");
}

}  // namespace sandbox
