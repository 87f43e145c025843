// common/syscall_policy: the one policy both sandboxes load, judged as seccomp judges it (every rule
// whose tests all hold matches; with none the default applies). The rules for one call must never
// disagree on an input, or the outcome would depend on how a filter compiler orders them.
#include <gtest/gtest.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <actionhost/common/syscall_policy.hpp>

#include <array>
#include <optional>
#include <set>
#include <string>

namespace syscalls = actionhost::common::syscalls;

namespace {

struct Decision {
    bool allow;
    int error;  // when refused
    bool operator==(const Decision &o) const { return allow == o.allow && (allow || error == o.error); }
};

bool holds(const syscalls::ArgTest &t, const std::array<uint64_t, 6> &args) {
    const uint64_t a = args[t.index];
    switch (t.op) {
        case syscalls::ArgTest::Equal: return a == t.value;
        case syscalls::ArgTest::NotEqual: return a != t.value;
        case syscalls::ArgTest::MaskedEqual: return (a & t.mask) == t.value;
    }
    return false;
}

// The decision for `name` with `args`; fails the test when matching rules disagree.
Decision decide(const syscalls::Policy &p, const std::string &name, std::array<uint64_t, 6> args = {}) {
    std::optional<Decision> found;
    for (const auto &r : p.rules) {
        if (r.name != name) continue;
        bool all = true;
        for (const auto &t : r.args) all = all && holds(t, args);
        if (!all) continue;
        const Decision d{r.allow, r.error};
        if (found) {
            EXPECT_TRUE(*found == d) << name << ": rules disagree on one input";
        }
        found = d;
    }
    return found.value_or(Decision{p.default_allow, p.default_error});
}

}  // namespace

TEST(SyscallPolicy, SetIdModeBitsAreRefusedWhateverTheCall) {
    for (auto scope : {syscalls::Scope::Full, syscalls::Scope::ModeBitsOnly}) {
        const auto p = syscalls::sandbox_policy(scope);
        for (uint64_t mode : {0755ull, 04755ull, 02755ull, 06777ull, 01777ull}) {
            const bool set_id = (mode & (S_ISUID | S_ISGID)) != 0;
            const Decision expect = set_id ? Decision{false, EPERM} : Decision{true, 0};
            EXPECT_EQ(decide(p, "chmod", {0, mode}), expect) << std::oct << mode;
            EXPECT_EQ(decide(p, "fchmod", {3, mode}), expect) << std::oct << mode;
            EXPECT_EQ(decide(p, "fchmodat", {3, 0, mode}), expect) << std::oct << mode;
            EXPECT_EQ(decide(p, "fchmodat2", {3, 0, mode, 0}), expect) << std::oct << mode;
            EXPECT_EQ(decide(p, "mknod", {0, S_IFREG | mode}), expect) << std::oct << mode;
            EXPECT_EQ(decide(p, "creat", {0, mode}), expect) << std::oct << mode;
            // open/openat: the mode counts only when the call creates.
            for (uint64_t flags : {uint64_t{O_RDONLY}, uint64_t{O_WRONLY | O_CREAT}, uint64_t{O_TMPFILE | O_RDWR}}) {
                const bool creates = (flags & (O_CREAT | __O_TMPFILE)) != 0;
                const Decision d = creates ? expect : Decision{true, 0};
                EXPECT_EQ(decide(p, "open", {0, flags, mode}), d) << std::oct << flags << " " << mode;
                EXPECT_EQ(decide(p, "openat", {3, 0, flags, mode}), d) << std::oct << flags << " " << mode;
            }
        }
        // openat2 carries its mode in memory: refused so the rules above cannot be gone round.
        EXPECT_EQ(decide(p, "openat2"), (Decision{false, ENOSYS}));
    }
}

TEST(SyscallPolicy, TheAllowListRefusesWhatItDoesNotName) {
    const auto p = syscalls::sandbox_policy(syscalls::Scope::Full);
    EXPECT_FALSE(p.default_allow);
    EXPECT_EQ(p.default_error, ENOSYS);
    for (const char *allowed : {"read", "write", "mmap", "futex", "execve", "ptrace", "rseq", "statx", "getrandom"})
        EXPECT_TRUE(decide(p, allowed).allow) << allowed;
    for (const char *refused : {"mount", "bpf", "unshare", "setns", "keyctl", "io_uring_setup", "modify_ldt", "memfd_secret",
                                "perf_event_open", "userfaultfd", "kexec_load", "open_by_handle_at"})
        EXPECT_EQ(decide(p, refused), (Decision{false, EPERM})) << refused;
    EXPECT_EQ(decide(p, "process_madvise"), (Decision{false, ENOSYS}));  // named nowhere
    EXPECT_EQ(decide(p, "clone3"), (Decision{false, ENOSYS}));           // libc falls back to clone
    // clone: threads and processes, never namespaces.
    EXPECT_TRUE(decide(p, "clone", {CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD}).allow);
    for (uint64_t ns : {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP})
        EXPECT_EQ(decide(p, "clone", {ns | 17}), (Decision{false, EPERM})) << std::hex << ns;
    // socket: anything but vsock.
    EXPECT_TRUE(decide(p, "socket", {AF_INET}).allow);
    EXPECT_TRUE(decide(p, "socket", {AF_UNIX}).allow);
    EXPECT_EQ(decide(p, "socket", {AF_VSOCK}), (Decision{false, EPERM}));
    // The kernel reads the family's low 32 bits only: garbage above them changes nothing.
    EXPECT_EQ(decide(p, "socket", {(1ULL << 32) | AF_VSOCK}), (Decision{false, EPERM}));
    EXPECT_EQ(decide(p, "socket", {0xffffffff00000000ULL | AF_VSOCK}), (Decision{false, EPERM}));
    EXPECT_TRUE(decide(p, "socket", {(1ULL << 32) | AF_INET}).allow);
    EXPECT_TRUE(decide(p, "socket", {AF_NETLINK}).allow);
    // personality: the query and plain Linux; address randomisation off is refused.
    EXPECT_TRUE(decide(p, "personality", {0xffffffffu}).allow);
    EXPECT_TRUE(decide(p, "personality", {0}).allow);
    EXPECT_FALSE(decide(p, "personality", {0x0040000}).allow);
}

TEST(SyscallPolicy, WithoutTheFilterOnlyTheModeBitRulesRemain) {
    const auto p = syscalls::sandbox_policy(syscalls::Scope::ModeBitsOnly);
    EXPECT_TRUE(p.default_allow);
    for (const char *call : {"mount", "bpf", "unshare", "modify_ldt"}) EXPECT_TRUE(decide(p, call).allow) << call;
    EXPECT_TRUE(decide(p, "socket", {AF_VSOCK}).allow);
}
