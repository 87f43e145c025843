#include "seccomp_filter.hpp"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>

#include <stdexcept>
#include <string>

namespace sandbox {

void install_seccomp_filter() {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw std::runtime_error("PR_SET_NO_NEW_PRIVS failed");
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) throw std::runtime_error("seccomp_init failed");
    const char *denied[] = {
        "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
        "mount_setattr", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module",
        "finit_module", "delete_module", "acct", "settimeofday", "clock_settime", "clock_adjtime", "syslog",
        "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "open_by_handle_at", "userfaultfd",
        "lookup_dcookie", "quotactl", "iopl", "ioperm", "setns", "unshare", "nfsservctl", "vhangup",
        
    };
    int rc = 0;
    for (const char *name : denied) {
        int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    // New namespaces through clone: refused by flag. clone3 passes its flags in memory a filter cannot
    // read, so it answers ENOSYS and libc falls back to clone (as Docker's profile does).
    // One rule per flag: libseccomp compares (arg & mask) == value, and rules for one syscall OR.
    for (unsigned long flag : {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
                               CLONE_NEWCGROUP})
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc != 0) {
        seccomp_release(ctx);
        throw std::runtime_error("seccomp_rule_add failed");
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) throw std::runtime_error("seccomp_load failed: " + std::to_string(rc));
}

}  // namespace sandbox
