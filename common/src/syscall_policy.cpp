#include "actionhost/common/syscall_policy.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>

namespace actionhost::common::syscalls {

namespace {

// Allowed without condition: Docker's default profile's list for x86-64 (and the i386-era names it
// shares, which no x86-64 kernel has and rendering skips), without io_uring (its operations would
// bypass any filter) and the calls refused below.
const char *const kAllowed[] = {
    "accept", "accept4", "access", "alarm", "arch_prctl", "bind", "brk", "cachestat", "capget", "capset", "chdir",
    "chown", "chroot", "clock_getres", "clock_gettime", "clock_nanosleep", "close", "close_range", "connect",
    "copy_file_range", "dup", "dup2", "dup3", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old",
    "epoll_pwait", "epoll_pwait2", "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "execve", "execveat",
    "exit", "exit_group", "faccessat", "faccessat2", "fadvise64", "fallocate", "fanotify_mark", "fchdir", "fchown",
    "fchownat", "fcntl", "fdatasync", "fgetxattr", "flistxattr", "flock", "fork", "fremovexattr", "fsetxattr",
    "fstat", "fstatfs", "fsync", "ftruncate", "futex", "futex_requeue", "futex_wait", "futex_waitv", "futex_wake",
    "futimesat", "getcpu", "getcwd", "getdents", "getdents64", "getegid", "geteuid", "getgid", "getgroups",
    "getitimer", "getpeername", "getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getrandom", "getresgid",
    "getresuid", "getrlimit", "get_robust_list", "getrusage", "getsid", "getsockname", "getsockopt",
    "get_thread_area", "gettid", "gettimeofday", "getuid", "getxattr", "inotify_add_watch", "inotify_init",
    "inotify_init1", "inotify_rm_watch", "io_cancel", "ioctl", "io_destroy", "io_getevents", "io_pgetevents",
    "ioprio_get", "ioprio_set", "io_setup", "io_submit", "kill", "landlock_add_rule", "landlock_create_ruleset",
    "landlock_restrict_self", "lchown", "lgetxattr", "link", "linkat", "listen", "listxattr", "llistxattr",
    "lremovexattr", "lseek", "lsetxattr", "lstat", "madvise", "map_shadow_stack", "membarrier", "memfd_create",
    "mincore", "mkdir", "mkdirat", "mlock", "mlock2", "mlockall", "mmap", "mprotect", "mq_getsetattr", "mq_notify",
    "mq_open", "mq_timedreceive", "mq_timedsend", "mq_unlink", "mremap", "msgctl", "msgget", "msgrcv", "msgsnd",
    "msync", "munlock", "munlockall", "munmap", "nanosleep", "newfstatat", "pause", "pidfd_getfd", "pidfd_open",
    "pidfd_send_signal", "pipe", "pipe2", "pkey_alloc", "pkey_free", "pkey_mprotect", "poll", "ppoll", "prctl",
    "pread64", "preadv", "preadv2", "prlimit64", "process_mrelease", "process_vm_readv", "process_vm_writev",
    "pselect6", "ptrace", "pwrite64", "pwritev", "pwritev2", "read", "readahead", "readlink", "readlinkat", "readv",
    "recvfrom", "recvmmsg", "recvmsg", "remap_file_pages", "removexattr", "rename", "renameat", "renameat2",
    "restart_syscall", "rmdir", "rseq", "rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
    "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_tgsigqueueinfo", "sched_getaffinity", "sched_getattr",
    "sched_getparam", "sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler",
    "sched_rr_get_interval", "sched_setaffinity", "sched_setattr", "sched_setparam", "sched_setscheduler",
    "sched_yield", "seccomp", "select", "semctl", "semget", "semop", "semtimedop", "sendfile", "sendmmsg",
    "sendmsg", "sendto", "setfsgid", "setfsuid", "setgid", "setgroups", "setitimer", "setpgid", "setpriority",
    "setregid", "setresgid", "setresuid", "setreuid", "setrlimit", "set_robust_list", "setsid", "setsockopt",
    "set_thread_area", "set_tid_address", "setuid", "setxattr", "shmat", "shmctl", "shmdt", "shmget", "shutdown",
    "sigaltstack", "signalfd", "signalfd4", "socketpair", "splice", "stat", "statfs", "statx", "symlink",
    "symlinkat", "sync", "sync_file_range", "syncfs", "sysinfo", "tee", "tgkill", "time", "timer_create",
    "timer_delete", "timer_getoverrun", "timer_gettime", "timer_settime", "timerfd_create", "timerfd_gettime",
    "timerfd_settime", "times", "tkill", "truncate", "umask", "uname", "unlink", "unlinkat", "utime", "utimensat",
    "utimes", "vfork", "vmsplice", "wait4", "waitid", "write", "writev",
    // Ours, beyond Docker's (which ties them to CAP_SYS_NICE): NUMA placement of the caller's own memory,
    // asked for by language runtimes (libnuma, the JVM); the kernel checks anything that reaches further.
    "get_mempolicy", "set_mempolicy", "mbind",
};

// Allowed, by number: calls newer than the libseccomp some builds link may know by name.
struct Numbered {
    const char *name;
    int x86_64_number;
};
const Numbered kAllowedByNumber[] = {
    {"map_shadow_stack", 453}, {"cachestat", 451}, {"futex_wake", 454}, {"futex_wait", 455},
    {"futex_requeue", 456}, {"uretprobe", 335},
};

// Refused with EPERM by name: what a workload never needs and an escape would (mounts, modules and kexec,
// rebooting, swap, clocks, the kernel log, bpf and perf, keyrings, handles that bypass path checks,
// userfaultfd, io_uring, namespaces, quotas, port I/O, kcmp), and what Docker's profile leaves out that
// is worth saying: modify_ldt (16-bit segments, a history of kernel bugs), memfd_secret (memory the
// kernel's own checks cannot see), page migration of other processes, the host name.
const char *const kRefused[] = {
    "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
    "mount_setattr", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "create_module", "get_kernel_syms", "query_module", "acct", "settimeofday", "stime",
    "clock_settime", "clock_adjtime", "adjtimex", "syslog", "bpf", "perf_event_open", "keyctl", "add_key",
    "request_key", "open_by_handle_at", "name_to_handle_at", "userfaultfd", "lookup_dcookie", "quotactl",
    "quotactl_fd", "iopl", "ioperm", "setns", "unshare", "nfsservctl", "vhangup", "kcmp", "io_uring_setup",
    "io_uring_enter", "io_uring_register", "uselib", "ustat", "sysfs", "_sysctl", "vm86", "vm86old",
    "open_tree_attr", "modify_ldt", "memfd_secret", "move_pages", "migrate_pages", "fanotify_init", "sethostname",
    "setdomainname",
};
const Numbered kRefusedByNumber[] = {{"open_tree_attr", 467}, {"memfd_secret", 447}, {"quotactl_fd", 443},
                                     {"mount_setattr", 442}};

// The flags of clone() that make new namespaces.
constexpr uint64_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                                     CLONE_NEWNET | CLONE_NEWCGROUP;

// personality(): the values Docker's profile allows (Linux, 32-bit Linux, UNAME26, both, and the query).
// ADDR_NO_RANDOMIZE and the other flags are refused: turning address randomisation off helps exploits.
constexpr uint64_t kPersonalities[] = {PER_LINUX, PER_LINUX32, UNAME26, uint64_t{UNAME26} | uint64_t{PER_LINUX32}, 0xffffffffu};

constexpr uint64_t kSetIdBits[] = {S_ISUID, S_ISGID};

// Calls that can give a file set-user-ID or set-group-ID bits: `mode` is the mode's argument, `flags` the
// open flags' (the mode counts only when the call creates). A workspace is a directory of the machine: a
// setuid file made there could be run by any local user from outside the sandbox.
struct ModeSetter {
    const char *name;
    int x86_64_number;
    unsigned mode;
    int flags = -1;
};
const ModeSetter kModeSetters[] = {
    {"chmod", -1, 1}, {"fchmod", -1, 1}, {"fchmodat", -1, 2}, {"fchmodat2", 452, 2}, {"mknod", -1, 1},
    {"mknodat", -1, 2}, {"creat", -1, 1}, {"open", -1, 2, 1}, {"openat", -1, 3, 2},
};

Rule allow(std::string name, int number = -1, std::vector<ArgTest> args = {}) {
    return Rule{std::move(name), number, true, 0, std::move(args)};
}
Rule refuse(std::string name, int error, int number = -1, std::vector<ArgTest> args = {}) {
    return Rule{std::move(name), number, false, error, std::move(args)};
}
ArgTest masked(unsigned index, uint64_t mask, uint64_t value) { return ArgTest{index, ArgTest::MaskedEqual, value, mask}; }
ArgTest equal(unsigned index, uint64_t value) { return ArgTest{index, ArgTest::Equal, value, 0}; }

// The mode-bit rules: each setter allowed when its mode has neither bit (or, for open, when it does not
// create), refused with EPERM for each bit otherwise. The conditions never overlap, so no order matters.
void add_mode_bit_rules(std::vector<Rule> &rules, bool with_allows) {
    constexpr uint64_t kCreating[] = {O_CREAT, __O_TMPFILE};
    for (const ModeSetter &m : kModeSetters) {
        if (with_allows) {
            rules.push_back(allow(m.name, m.x86_64_number, {masked(m.mode, S_ISUID | S_ISGID, 0)}));
            if (m.flags >= 0)
                rules.push_back(allow(m.name, m.x86_64_number, {masked(static_cast<unsigned>(m.flags), O_CREAT | __O_TMPFILE, 0)}));
        }
        for (uint64_t bit : kSetIdBits) {
            if (m.flags < 0) {
                rules.push_back(refuse(m.name, EPERM, m.x86_64_number, {masked(m.mode, bit, bit)}));
                continue;
            }
            for (uint64_t creating : kCreating)
                rules.push_back(refuse(m.name, EPERM, m.x86_64_number,
                                       {masked(static_cast<unsigned>(m.flags), creating, creating), masked(m.mode, bit, bit)}));
        }
    }
}

}  // namespace

Policy sandbox_policy(Scope scope) {
    Policy p;
    if (scope == Scope::ModeBitsOnly) {
        p.default_allow = true;
        add_mode_bit_rules(p.rules, false);
        // openat2 carries its mode in memory a filter cannot read: refused, or the mode rules would not hold.
        p.rules.push_back(refuse("openat2", ENOSYS, 437));
        return p;
    }
    p.default_allow = false;
    p.default_error = ENOSYS;
    for (const char *name : kAllowed) p.rules.push_back(allow(name));
    for (const Numbered &n : kAllowedByNumber) p.rules.push_back(allow(n.name, n.x86_64_number));
    for (const char *name : kRefused) p.rules.push_back(refuse(name, EPERM));
    for (const Numbered &n : kRefusedByNumber) p.rules.push_back(refuse(n.name, EPERM, n.x86_64_number));
    // clone: without namespace flags; with any of them EPERM (one rule per flag: seccomp compares one
    // masked value per test). clone3 passes its flags in memory: ENOSYS, and libc falls back to clone.
    p.rules.push_back(allow("clone", -1, {masked(0, kNamespaceFlags, 0)}));
    for (uint64_t flag : {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP})
        p.rules.push_back(refuse("clone", EPERM, -1, {masked(0, flag, flag)}));
    p.rules.push_back(refuse("clone3", ENOSYS, 435));
    p.rules.push_back(refuse("openat2", ENOSYS, 437));
    // socket: every family but AF_VSOCK, which has no network namespace (a sandbox could bind the
    // machine's own vsock ports, or reach the hypervisor). EPERM, as Docker's profile answers it. The
    // kernel reads the family as an int — the register's low 32 bits — while seccomp sees all 64: a test
    // on the whole value let `socket((1 << 32) | AF_VSOCK, ...)` through (a red-team run bound a vsock
    // port that way). So every test masks the high half off, one allow rule per known family (seccomp has
    // no "masked and not equal"); a family past AF_MAX gets the default answer.
    for (uint64_t family = 0; family < AF_MAX; ++family)
        if (family != AF_VSOCK) p.rules.push_back(allow("socket", -1, {masked(0, 0xffffffffULL, family)}));
    p.rules.push_back(refuse("socket", EPERM, -1, {masked(0, 0xffffffffULL, AF_VSOCK)}));
    for (uint64_t persona : kPersonalities) p.rules.push_back(allow("personality", -1, {equal(0, persona)}));
    add_mode_bit_rules(p.rules, true);
    return p;
}

}  // namespace actionhost::common::syscalls
