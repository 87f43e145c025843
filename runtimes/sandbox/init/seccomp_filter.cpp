#include "seccomp_filter.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <stdexcept>
#include <string>

namespace sandbox {

namespace {

// Calls a workload never needs and an escape would: mounts, kernel modules and kexec, rebooting,
// swap, clocks, the kernel log, bpf and perf, keyrings, handles that bypass path checks, userfaultfd,
// io_uring (its operations bypass this filter), namespaces, quotas, port I/O, kcmp.
const char *const kDenied[] = {
    "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
    "mount_setattr", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "create_module", "get_kernel_syms", "query_module", "acct", "settimeofday", "stime",
    "clock_settime", "clock_adjtime", "adjtimex", "syslog", "bpf", "perf_event_open", "keyctl", "add_key",
    "request_key", "open_by_handle_at", "name_to_handle_at", "userfaultfd", "lookup_dcookie", "quotactl",
    "quotactl_fd", "iopl", "ioperm", "setns", "unshare", "nfsservctl", "vhangup", "kcmp", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "uselib", "ustat", "sysfs", "_sysctl", "vm86", "vm86old",
    "open_tree_attr",
};

// Calls newer than the libseccomp of the build may know by name, by their x86-64 number: a deny list must
// not let a call through because its name is unknown to the library.
struct NumberedCall {
    const char *name;
    int x86_64_nr;
};
const NumberedCall kNumbered[] = {{"fchmodat2", 452}, {"open_tree_attr", 467}};

int resolve(const char *name) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr != __NR_SCMP_ERROR) return nr;
#if defined(__x86_64__)
    for (const NumberedCall &c : kNumbered)
        if (std::string(c.name) == name) return c.x86_64_nr;
#endif
    return __NR_SCMP_ERROR;
}

struct ModeArg {
    const char *call;
    unsigned mode_arg;           // index of the mode argument
    int flags_arg = -1;          // index of open flags, when the mode matters only when creating
};

// Calls that can give a file set-user-ID or set-group-ID bits. A workspace is a directory of the
// machine: a setuid file made there could be run by any local user from outside the sandbox.
const ModeArg kModeSetters[] = {
    {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"mknod", 1}, {"mknodat", 2},
    {"creat", 1}, {"open", 2, 1}, {"openat", 3, 2},
};

}  // namespace

void install_seccomp_filter(FilterScope scope) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw std::runtime_error("PR_SET_NO_NEW_PRIVS failed");
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);  // other ABIs (x32, ia32) are killed: bad arch
    if (!ctx) throw std::runtime_error("seccomp_init failed");
    int rc = 0;
    if (scope == FilterScope::Full) {
        for (const char *name : kDenied) {
            const int nr = resolve(name);
            if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
        }
    }
    // New namespaces through clone: refused by flag. clone3 passes its flags in memory a filter cannot
    // read, so it answers ENOSYS and libc falls back to clone (as Docker's profile does); openat2 passes
    // its mode the same way and answers ENOSYS too (callers fall back to openat).
    // One rule per flag: libseccomp compares (arg & mask) == value, and rules for one syscall OR.
    if (scope == FilterScope::Full) {
        for (unsigned long flag : {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
                                   CLONE_NEWCGROUP})
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    }
    // openat2 carries its mode in memory: refused in both scopes, or the mode-bit rules would not hold.
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
    for (const ModeArg &m : kModeSetters) {
        const int nr = resolve(m.call);
        if (nr == __NR_SCMP_ERROR) continue;
        for (unsigned long bit : {static_cast<unsigned long>(S_ISUID), static_cast<unsigned long>(S_ISGID)}) {
            const scmp_arg_cmp mode = {m.mode_arg, SCMP_CMP_MASKED_EQ, bit, bit};
            if (m.flags_arg < 0) {
                rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, mode);
                continue;
            }
            // open/openat: only when the call creates (O_CREAT, or O_TMPFILE's own bit).
            for (unsigned long creating : {static_cast<unsigned long>(O_CREAT), static_cast<unsigned long>(__O_TMPFILE)}) {
                const scmp_arg_cmp flags = {static_cast<unsigned>(m.flags_arg), SCMP_CMP_MASKED_EQ, creating, creating};
                rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, flags, mode);
            }
        }
    }
    if (rc != 0) {
        seccomp_release(ctx);
        throw std::runtime_error("seccomp_rule_add failed");
    }
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) throw std::runtime_error("seccomp_load failed: " + std::to_string(rc));
}

}  // namespace sandbox
