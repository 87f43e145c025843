// The sandbox runtime as a security boundary: each test is one attack a command inside the sandbox
// makes on the machine (docs/security.md, "Attacks tried"). Runs as root and, as AsUser.*, as nobody.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/xattr.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "integration/runtimes/runtime_harness.hpp"
#include "support/proc_file.hpp"
#include "support/run_process.hpp"
#include "support/sanitizers.hpp"
#include "sandbox_probe.hpp"

using namespace runtimes_test;
using namespace security_test;
using actionhost::client::Config;
using actionhost::testing::read_proc_file;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool running_as_root() { return geteuid() == 0; }

std::string content(const json &obs) { return obs.value("content", ""); }

// What a command prints inside the sandbox (its exit code must be 0: these are probes, not attacks).
std::string probe(StartedRuntime &s, const std::string &command) {
    json obs = run(*s.runtime, command, 60);
    EXPECT_EQ(exit_code(obs), 0) << command << "\n" << obs.dump();
    return content(obs);
}

}  // namespace

// 1. Root inside the sandbox is an unprivileged id of the machine, for every process and every file.
TEST(SandboxBoundary, RootInsideIsNotRootOutside) {
    auto s = start_runtime("sandbox");
    const std::string tag = "ahsec" + random_tag();
    // A process left running inside, found by its arguments from the machine's side.
    run(*s->runtime, "python3 -c 'import time; time.sleep(600)' " + tag + " & disown; echo started");
    const std::string ids = outside_ids_of(tag);
    ASSERT_FALSE(ids.empty()) << "the sleeping process was not found from outside";
    for (long id : ids_on(ids)) {
        EXPECT_NE(id, 0) << "a process of the sandbox has id 0 on the machine:\n" << ids;
        if (!running_as_root()) {
            EXPECT_TRUE(id == static_cast<long>(getuid()) || id == static_cast<long>(getgid())) << ids;
        }
    }
    run(*s->runtime, "pkill -f " + tag);
    // A file written inside: owned on the machine by the workspace's owner — the starting user, root's
    // workspace staying root's through the idmapped mount — and by no other id.
    struct stat ws{};
    ASSERT_EQ(::stat(s->workspace->path().c_str(), &ws), 0);
    EXPECT_EQ(ws.st_uid, getuid()) << "the workspace changed hands";
    EXPECT_EQ(exit_code(run(*s->runtime, "echo data > /workspace/made_inside && mkdir /workspace/dir_inside")), 0);
    for (const char *name : {"made_inside", "dir_inside"}) {
        struct stat st{};
        ASSERT_EQ(::lstat((s->workspace->path() + "/" + name).c_str(), &st), 0) << name;
        EXPECT_EQ(st.st_uid, ws.st_uid) << name << " is not the workspace owner's on the machine";
        EXPECT_EQ(st.st_gid, ws.st_gid) << name;
    }
    // The machine's root owning what the sandbox writes is safe only if nothing privileged can be made
    // there: no set-user-ID bit (below, NoSetuidFileReachesTheMachine) and no file capability, which the
    // sandbox's root cannot set (no CAP_SETFCAP in its bounding set).
    const std::string setcap = probe(*s, "python3 -c \"import os\ntry:\n    os.setxattr('/workspace/made_inside', "
                                          "'security.capability', bytes([0,0,0,2, 0x80,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0]))\n"
                                          "    print('set')\nexcept OSError as e: print('refused', e.errno)\"");
    if (running_as_root()) {  // root's workspace: idmapped
        EXPECT_EQ(setcap.rfind("refused", 0), 0u) << setcap;
    }
    // Whatever was stored holds for no root but the sandbox's own: a version-3 capability whose root id
    // is the caller's (an unprivileged caller's sandbox may set one, as rootless containers do), never one
    // the machine's root namespace honours (version 2, or root id 0).
    unsigned char cap[64] = {};
    const ssize_t n = ::lgetxattr((s->workspace->path() + "/made_inside").c_str(), "security.capability", cap, sizeof cap);
    if (n >= 0) {
        ASSERT_EQ(n, 24) << "a capability without a root id reached the machine";
        const uint32_t rootid = cap[20] | (cap[21] << 8) | (cap[22] << 16) | (static_cast<uint32_t>(cap[23]) << 24);
        EXPECT_NE(rootid, 0u) << "a file capability for the machine's root reached the machine";
        EXPECT_EQ(rootid, getuid());
    }
    // Inside, the workspace belongs to the sandbox's user (git's safe.directory check holds).
    EXPECT_EQ(probe(*s, "stat -c %u /workspace"), probe(*s, "id -u"));
}

// 2. Writes to the machine's kernel settings fail. Each write would put back the value already there, so
// even a sandbox without the defence changes nothing on the machine.
TEST(SandboxBoundary, KernelSettingsCannotBeWritten) {
    const std::string pattern_before = read_proc_file("/proc/sys/kernel/core_pattern");
    auto s = start_runtime("sandbox");
    for (const char *setting : {"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/printk_ratelimit",
                                "/proc/sys/vm/overcommit_ratio", "/proc/sys/kernel/hostname"}) {
        json obs = run(*s->runtime, std::string("v=$(cat ") + setting + ") && printf '%s\\n' \"$v\" > " + setting);
        EXPECT_NE(exit_code(obs), 0) << setting << " was writable: " << obs.dump();
    }
    EXPECT_NE(exit_code(run(*s->runtime, "test -w /proc/sysrq-trigger || test -w /proc/sys/vm/drop_caches")), 0)
        << "sysrq-trigger or drop_caches is writable";
    for (const char *mount_point : {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}) {
        json obs = run(*s->runtime, std::string("test ! -e ") + mount_point + " || findmnt -no OPTIONS " + mount_point +
                                        " | tr , '\\n' | grep -qx ro");
        EXPECT_EQ(exit_code(obs), 0) << mount_point << " is not a read-only mount: " << obs.dump();
    }
    // Masked: present as empty, as in Docker's default.
    for (const char *masked : {"/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug"}) {
        json obs = run(*s->runtime, std::string("test ! -e ") + masked + " || test \"$(head -c 64 " + masked + " | wc -c)\" = 0");
        EXPECT_EQ(exit_code(obs), 0) << masked << " is readable: " << obs.dump();
    }
    EXPECT_EQ(read_proc_file("/proc/sys/kernel/core_pattern"), pattern_before);
}

// 3. pid 1 (ah-sandbox-init) can be neither traced nor read by the workload, and holds nothing to abuse.
TEST(SandboxBoundary, Pid1CannotBeTracedOrRead) {
    auto s = start_runtime("sandbox");
    // PTRACE_ATTACH (16) then, should it ever succeed, PTRACE_DETACH (17) at once so pid 1 runs on.
    const std::string attach =
        "python3 -c \"import ctypes,os; libc=ctypes.CDLL(None, use_errno=True); r=libc.ptrace(16,1,0,0); "
        "e=ctypes.get_errno(); r == 0 and os.waitpid(1, 0x40000000); r == 0 and libc.ptrace(17,1,0,0); "
        "print('attached' if r == 0 else 'refused', e)\"";
    const std::string attached = content(run(*s->runtime, attach, 30));
    EXPECT_EQ(attached.rfind("refused", 0), 0u) << attached;
    for (const char *file : {"/proc/1/mem", "/proc/1/environ", "/proc/1/maps"}) {
        json obs = run(*s->runtime, std::string("head -c 1 ") + file + " > /dev/null");
        EXPECT_NE(exit_code(obs), 0) << file << " of pid 1 is readable: " << obs.dump();
    }
    EXPECT_NE(exit_code(run(*s->runtime, "ls -l /proc/1/exe /proc/1/cwd /proc/1/root")), 0);
    // pid 1 has no capabilities, no way to regain them, and its own seccomp filter.
    const std::string status = probe(*s, "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/1/status");
    EXPECT_NE(status.find("CapEff:\t0000000000000000"), std::string::npos) << status;
    EXPECT_NE(status.find("CapBnd:\t0000000000000000"), std::string::npos) << status;
    EXPECT_NE(status.find("NoNewPrivs:\t1"), std::string::npos) << status;
    EXPECT_NE(status.find("Seccomp:\t2"), std::string::npos) << status;
    // And the sandbox still answers at once (a stopped pid 1 used to hang every later request).
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(content(run(*s->runtime, "echo still answering", 10)), "still answering");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

// 3b. Every process of the sandbox: no_new_privs, a seccomp filter, Docker's capability bounding set at
// most, and the calls Docker's default profile refuses are refused.
TEST(SandboxBoundary, EveryProcessIsConfined) {
    auto s = start_runtime("sandbox");
    const std::string status = probe(*s, "grep -E '^(CapBnd|NoNewPrivs|Seccomp):' /proc/self/status");
    EXPECT_NE(status.find("NoNewPrivs:\t1"), std::string::npos) << status;
    EXPECT_NE(status.find("Seccomp:\t2"), std::string::npos) << status;
    const size_t at = status.find("CapBnd:\t");
    ASSERT_NE(at, std::string::npos) << status;
    const unsigned long long bounding = std::stoull(status.substr(at + 8, 16), nullptr, 16);
    const unsigned long long docker_default = 0xa80425fbULL;  // chown dac_override fowner fsetid kill setgid
                                                             // setuid setpcap net_bind_service net_raw
                                                             // sys_chroot mknod audit_write setfcap
    EXPECT_EQ(bounding & ~docker_default, 0ULL) << "capabilities beyond Docker's default: " << std::hex << bounding;
    // Each of these must fail inside (a new user namespace would give back every capability).
    for (const char *attack : {"unshare -r true", "unshare -m true", "mount -t tmpfs none /mnt",
                               "python3 -c 'import os; os.unshare(0x10000000)'"}) {
        EXPECT_NE(exit_code(run(*s->runtime, attack)), 0) << attack;
    }
    // System calls by number (x86-64): bpf 321, perf_event_open 298, keyctl 250, userfaultfd 323,
    // kexec_load 246, init_module 175, io_uring_setup 425, open_by_handle_at 304. Each must fail with
    // EPERM or ENOSYS whatever its arguments.
    const std::string syscalls =
        "python3 -c \"import ctypes; libc=ctypes.CDLL(None, use_errno=True)\n"
        "for nr in (321, 298, 250, 323, 246, 175, 425, 304):\n"
        "    r = libc.syscall(nr, 0, 0, 0, 0, 0)\n"
        "    print(nr, r, ctypes.get_errno())\"";
    std::istringstream lines(probe(*s, syscalls));
    int checked = 0;
    for (long nr, r, err; lines >> nr >> r >> err; ++checked) {
        EXPECT_EQ(r, -1) << "syscall " << nr << " succeeded";
        EXPECT_TRUE(err == 1 /*EPERM*/ || err == 38 /*ENOSYS*/) << "syscall " << nr << " failed with errno " << err
                                                                << ", not by the filter";
    }
    EXPECT_EQ(checked, 8);
}

// 4. A setuid or setgid file planted in the workspace never exists on the machine, whatever the route,
// and nothing the sandbox writes there belongs to anyone but the workspace's owner.
TEST(SandboxBoundary, NoSetuidFileReachesTheMachine) {
    auto s = start_runtime("sandbox");
    const std::string attacks =
        "cp /bin/bash /workspace/chmod_plant; chmod 4755 /workspace/chmod_plant; chmod u+s,g+s /workspace/chmod_plant; "
        "install -m 6755 /bin/true /workspace/install_plant; "
        "python3 -c \"import os; os.close(os.open('/workspace/open_plant', os.O_CREAT|os.O_WRONLY, 0o6755))\"; "
        "python3 -c \"import os; os.mknod('/workspace/mknod_plant', 0o104755)\"; "
        "mkdir /workspace/sgid_dir; chmod 2775 /workspace/sgid_dir; "
        "mknod /workspace/null_device c 1 3; true";
    run(*s->runtime, attacks, 60);
    int seen = 0;
    for (const auto &entry : fs::directory_iterator(s->workspace->path())) {
        struct stat st{};
        ASSERT_EQ(::lstat(entry.path().c_str(), &st), 0);
        ++seen;
        EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << entry.path() << " is setuid/setgid on the machine";
        EXPECT_EQ(st.st_uid, getuid()) << entry.path() << " is not the workspace owner's on the machine";
        EXPECT_FALSE(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) << entry.path() << " is a device node";
    }
    EXPECT_GE(seen, 2) << "the plants were not even written";
    // The workspace is mounted nosuid and nodev inside, like every writable mount.
    for (const char *writable : {"/workspace", "/tmp", "/dev/shm", "/var/tmp", "$HOME"}) {
        const std::string opts = probe(*s, std::string("findmnt -no OPTIONS --target ") + writable);
        EXPECT_NE(opts.find("nosuid"), std::string::npos) << writable << ": " << opts;
        EXPECT_NE(opts.find("nodev"), std::string::npos) << writable << ": " << opts;
    }
}

// A file or directory the test puts in a directory of the machine for its own life.
struct Marker {
    std::string path;
    explicit Marker(const std::string &dir) : path(dir + "/ah-security-marker-" + random_tag()) {
        if (::mkdir(path.c_str(), 0755) != 0) path.clear();
    }
    ~Marker() {
        if (!path.empty()) ::rmdir(path.c_str());
    }
    bool made() const { return !path.empty(); }
};

// 5. The machine's secrets, users' files, daemons' state and sockets are not reachable inside.
TEST(SandboxBoundary, HostSecretsAreNotVisible) {
    // A listening socket of the machine's, in /run where daemons put theirs.
    const std::string sock_path = "/run/ah-security-probe-" + random_tag() + ".sock";
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path.c_str());
    const bool have_socket = bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 && listen(listener, 4) == 0;
    if (have_socket) chmod(sock_path.c_str(), 0777);
    // Markers in the machine's /tmp, /home and /root (the last two only where this user may write).
    Marker in_tmp("/tmp"), in_home("/home"), in_root("/root");
    ASSERT_TRUE(in_tmp.made());
    auto s = start_runtime("sandbox");
    for (const char *secret : {"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/var/lib/docker", "/var/log",
                               "/srv", "/sys/firmware", "/sys/class/net", "/sys/kernel", "/sys/fs/cgroup/memory/actionhost"}) {
        json obs = run(*s->runtime, std::string("ls -d ") + secret);
        EXPECT_NE(exit_code(obs), 0) << secret << " is visible inside: " << obs.dump();
    }
    for (const Marker *m : {&in_tmp, &in_home, &in_root}) {
        if (!m->made()) continue;
        json obs = run(*s->runtime, "ls -d " + m->path);
        EXPECT_NE(exit_code(obs), 0) << "the machine's " << m->path << " is visible inside";
    }
    // /home holds at most the sandbox user's own home.
    EXPECT_EQ(probe(*s, "ls -A /home | grep -cvx \"$(id -un)\" || true"), "0") << probe(*s, "ls -la /home");
    // The generated identity files name only the sandbox's own users; no password hashes anywhere.
    EXPECT_EQ(probe(*s, "cut -d: -f1 /etc/passwd | grep -cvxE \"root|nobody|$(id -un)\" || true"), "0");
    EXPECT_EQ(probe(*s, "cut -d: -f2 /etc/passwd | grep -cvx x || true"), "0");
    // Only the sandbox's own cgroups are visible (a cgroup namespace rooted at them).
    EXPECT_EQ(probe(*s, "grep -cvE ':/$' /proc/self/cgroup || true"), "0") << probe(*s, "cat /proc/self/cgroup");
    if (have_socket) {
        json obs = run(*s->runtime, "ls " + sock_path + " || python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); "
                                    "s.connect('" + sock_path + "'); print('connected')\"");
        EXPECT_EQ(content(obs).find("connected"), std::string::npos) << obs.dump();
        EXPECT_NE(exit_code(obs), 0) << obs.dump();
    }
    close(listener);
    if (have_socket) unlink(sock_path.c_str());
}

// 6. Filling every writable tmpfs ends in "No space left on device", never in the OOM killer taking the
// host server: their sizes are bounded below the memory limit.
TEST(SandboxBoundary, FillingTmpfsLeavesTheHostAnswering) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.memory_limit_mb", 256); });
    const std::string fill =
        "for d in /tmp /dev/shm /var/tmp \"$HOME\"; do dd if=/dev/zero of=$d/fill bs=1M count=1024 2>&1 | "
        "grep -o 'No space left on device' | head -1; done";
    json obs = run(*s->runtime, fill, 120);
    EXPECT_EQ(content(obs), "No space left on device\nNo space left on device\nNo space left on device\nNo space left on device")
        << obs.dump();
    EXPECT_EQ(content(run(*s->runtime, "echo alive", 30)), "alive");
    // The scratch space taken together stays under half of the memory limit.
    const std::string used = probe(*s, "du -scm /tmp/fill /dev/shm/fill /var/tmp/fill \"$HOME\"/fill | tail -1 | cut -f1");
    EXPECT_LE(std::stol(used), 128) << used << " MiB of tmpfs with a 256 MiB limit";
}

// 6b. A command the OOM killer ends is reported as such, and the host survives.
TEST(SandboxBoundary, AnOutOfMemoryKillIsReported) {
    const int limit_mb = 192 + actionhost::testing::kSanitizerHostMemoryMb;
    auto s = start_runtime("sandbox", [&](Config &c) { c.set("sandbox.memory_limit_mb", limit_mb); });
    if (probe(*s, "test -r /sys/fs/cgroup/memory/memory.limit_in_bytes -o -r /sys/fs/cgroup/memory.max && echo yes || echo no") != "yes")
        GTEST_SKIP() << "no memory cgroup for this user: the sandbox has no memory limit to enforce (docs/security.md)";
    json hog = run(*s->runtime, "python3 -c \"b = bytearray(" + std::to_string(2 * limit_mb) +
                                    " * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('survived')\"", 60);
    EXPECT_NE(exit_code(hog), 0) << hog.dump();
    // The agent reads the metadata suffix after the output (as OpenHands shows it).
    const std::string suffix = hog["extras"]["metadata"].value("suffix", "");
    EXPECT_NE(suffix.find("killed by the kernel's out-of-memory killer (memory limit " + std::to_string(limit_mb) + " MiB)"), std::string::npos)
        << hog.dump();
    EXPECT_EQ(content(run(*s->runtime, "echo still here")), "still here");
}

// 6c. A fork bomb stops at the sandbox's task limit, for an unprivileged caller too (no pids cgroup
// there: the limit is an rlimit counted in the sandbox's own user namespace), and the machine and the
// host go on.
TEST(SandboxBoundary, AForkBombStopsAtTheTaskLimit) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.pids_limit", 64); });
    run(*s->runtime, "bomb() { bomb | bomb & }; bomb", 3);
    int most = 0;
    for (int i = 0; i < 40; ++i) {  // two seconds of the bomb against the limit
        // The count on a line of its own: the bomb's own complaints may share the terminal.
        // Counted with builtins only: at the limit, a probe that forks would itself be refused.
        json obs = run(*s->runtime, "n=0; for d in /proc/[0-9]*; do n=$((n+1)); done; echo tasks=$n", 10);
        const std::string text = content(obs);
        const size_t at = text.rfind("tasks=");
        if (at != std::string::npos) most = std::max(most, std::atoi(text.c_str() + at + 6));
        usleep(50000);
    }
    EXPECT_GT(most, 20) << "the bomb never spread";
    EXPECT_LE(most, 64 + 8) << "more tasks than the limit";  // + the few the kernel counts apart (threads)
    pid_t p = fork();  // the machine still forks
    if (p == 0) _exit(0);
    ASSERT_GT(p, 0);
    waitpid(p, nullptr, 0);
    s->runtime->close();  // kills the whole pid namespace, bomb included
}

// 4b. The set-user/group-id rules hold even with the filter turned off ([sandbox] seccomp = false): a
// setuid copy in the workspace would let any local user become the sandbox's range id outside.
TEST(SandboxBoundary, SetuidPlantsAreRefusedEvenWithoutTheFilter) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.seccomp", false); });
    EXPECT_EQ(probe(*s, "grep '^Seccomp:' /proc/self/status"), "Seccomp:\t2");
    run(*s->runtime, "cp /usr/bin/id /workspace/x; chmod 4755 /workspace/x; chmod g+s /workspace/x; true");
    struct stat st{};
    ASSERT_EQ(::lstat((s->workspace->path() + "/x").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << std::oct << st.st_mode;
    // The rest of the filter is off, as asked: unshare works again.
    EXPECT_EQ(exit_code(run(*s->runtime, "unshare -U true")), 0);
}

// 9. What the sandbox writes to its host's output reaches the machine only through ah-sandbox-init's
// bounded relay: a command that takes the host's descriptor cannot fill the machine's disk or write
// into a file of the machine.
TEST(SandboxBoundary, TheSandboxsOutputIsBounded) {
    // Without the audit trail: a host keeping one makes itself non-dumpable, and then no command can take
    // its descriptors at all (SandboxAudit tests that); the relay's bound is the defence behind that.
    auto s = start_runtime("sandbox", [](actionhost::client::Config &c) { c.set("sandbox.audit", false); });
    std::string url = s->runtime->url();
    ASSERT_EQ(url.rfind("unix://", 0), 0u) << url;
    const std::string log = std::filesystem::path(url.substr(7)).parent_path() / "sandbox.log";
    // A copy of the host's stderr taken with pidfd_getfd (438): the host runs as the sandbox's root, as
    // commands do, so a command may take it (it may not reopen the pipe: root made it). 40 MB written.
    actionhost::testing::write_file(s->workspace->path() + "/flood.py",
                                    "import os, ctypes, subprocess\n"
                                    "libc = ctypes.CDLL(None, use_errno=True)\n"
                                    "host = int(subprocess.check_output(['pgrep', '-x', 'actionhost']).split()[0])\n"
                                    "fd = libc.syscall(438, os.pidfd_open(host), 2, 0)\n"
                                    "assert fd >= 0, ctypes.get_errno()\n"
                                    "try:\n"
                                    "    for _ in range(40): os.write(fd, b'x' * 1000000)\n"
                                    "except BrokenPipeError:\n"
                                    "    print('pipe closed')\n");
    json flood = run(*s->runtime, "python3 /workspace/flood.py", 120);
    EXPECT_EQ(content(flood), "pipe closed") << flood.dump();
    const auto size = std::filesystem::file_size(log);
    EXPECT_LE(size, (16u << 20) + 4096) << "sandbox.log grew to " << size << " bytes";
    EXPECT_NE(actionhost::testing::read_file(log).find("the rest is discarded"), std::string::npos);
    EXPECT_EQ(content(run(*s->runtime, "echo still answering")), "still answering");
    // The file the host's descriptors name is a pipe, not a file of the machine.
    EXPECT_EQ(probe(*s, "readlink /proc/$(pgrep -x actionhost)/fd/2 | cut -d: -f1"), "pipe");
}

// 10. SysV shared memory, which outlives its processes and belongs to no tmpfs, is bounded by the
// scratch budget too (root callers: only the namespace's root may set the limits).
TEST(SandboxBoundary, SharedMemorySegmentsAreBounded) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.memory_limit_mb", 256); });
    if (geteuid() != 0) GTEST_SKIP() << "an unprivileged caller's sandbox has no root to set its IPC limits";
    EXPECT_EQ(probe(*s, "cat /proc/sys/kernel/shmmax"), std::to_string(64u << 20));
    EXPECT_NE(exit_code(run(*s->runtime, "ipcmk -M 200M")), 0) << "a 200 MiB segment was made under a 256 MiB limit";
    EXPECT_EQ(content(run(*s->runtime, "echo alive")), "alive");
}

// 8. pid 1's relay stays idle when a client hangs up before the host answers (it used to spin on the
// hang-up, ~20 % of a core for as long as the action ran).
TEST(SandboxBoundary, Pid1StaysIdleWhenAClientHangsUp) {
    auto s = start_runtime("sandbox");
    const std::string sock = s->runtime->url().substr(7);
    // pid 1 as the machine sees it: the child of the ah-sandbox-init that listens on this socket.
    pid_t init = -1;
    for (const auto &e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = read_proc_file(e.path().string() + "/cmdline");
        if (cmdline.find("ah-sandbox-init") != std::string::npos && cmdline.find(sock) != std::string::npos) init = std::stoi(name);
    }
    ASSERT_GT(init, 0);
    std::istringstream children(read_proc_file("/proc/" + std::to_string(init) + "/task/" + std::to_string(init) + "/children"));
    pid_t pid1 = -1;
    children >> pid1;
    ASSERT_GT(pid1, 0);
    auto cpu_ticks = [pid1] {
        std::string stat = read_proc_file("/proc/" + std::to_string(pid1) + "/stat");
        std::istringstream in(stat.substr(stat.rfind(')') + 2));
        std::string field;
        long utime = 0, stime = 0;
        for (int i = 3; i <= 15 && in >> field; ++i) {
            if (i == 14) utime = std::stol(field);
            if (i == 15) stime = std::stol(field);
        }
        return utime + stime;
    };
    // A request for a 4 s command, and the client gone at once.
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
    const std::string body = R"({"action":{"action":"run","args":{"command":"sleep 4","blocking":true}}})";
    const std::string request = "POST /execute_action HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                "X-Session-API-Key: " + s->runtime->wire().session_api_key() + "\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
    close(fd);
    usleep(300000);
    const long before = cpu_ticks();
    sleep(2);
    const long used = cpu_ticks() - before;
    EXPECT_LE(used, 10) << "pid 1 used " << used << " ticks of CPU in 2 s with nobody to answer";
}

// 7. The OOM killer's order: every command above the host, and no command can make itself immune
// (nothing of the sandbox has a negative score, so none can lower itself below the host's 0).
TEST(SandboxBoundary, CommandsGoBeforeTheHostAndNoneIsImmune) {
    auto s = start_runtime("sandbox");
    EXPECT_EQ(probe(*s, "cat /proc/$(pgrep -x actionhost)/oom_score_adj"), "0");
    EXPECT_EQ(probe(*s, "cat /proc/self/oom_score_adj"), "500");
    EXPECT_EQ(probe(*s, "cat /proc/1/oom_score_adj"), "0");
    EXPECT_NE(exit_code(run(*s->runtime, "echo -1000 > /proc/self/oom_score_adj")), 0) << "a command made itself immune";
}

// 7. The agent becoming the sandbox's root through the host: the session key lets any command POST a
// `write` the host performs as root. Before, the IPython kernel (the agent's user) and Chromium held it in
// their environment, which the agent's commands read through /proc/PID/environ. Now no process the agent
// can read holds it, and the host's own environment (another user's) cannot be read at all.
TEST(SandboxBoundary, TheAgentFindsTheSessionKeyNowhere) {
    auto s = start_runtime(
        "sandbox",
        [](Config &c) {
            c.set("core.run_as_openhands", true);
            c.set("core.enable_browser", true);
        },
        [](actionhost::client::RuntimeOptions &o) { o.plugins = {"jupyter"}; });
    const std::string key = s->runtime->wire().session_api_key();
    ASSERT_GE(key.size(), 16u);
    json cell = s->runtime->execute({{"action", "run_ipython"}, {"args", {{"code", "import os; print(os.getuid())"}}}});
    EXPECT_EQ(cell.value("content", "").rfind("1000", 0), 0u) << cell.dump();
    json page = s->runtime->execute({{"action", "browse"}, {"args", {{"url", "about:blank"}}}, {"timeout", 60.0}});
    EXPECT_EQ(page.value("observation", ""), "browse") << page.dump().substr(0, 500);
    // The key goes in through a file, so the scanning command's own arguments do not hold it.
    json wrote = s->runtime->execute({{"action", "write"}, {"args", {{"path", "/tmp/k"}, {"content", key}}}});
    ASSERT_EQ(wrote.value("observation", ""), "write") << wrote.dump();
    const std::string scan =
        "k=$(head -c 64 /tmp/k); rm -f /tmp/k; readable=0; holders=''; "
        "for f in /proc/[0-9]*/environ; do if tr '\\0' '\\n' < $f > /tmp/e 2>/dev/null; then readable=$((readable+1)); "
        "grep -qF \"$k\" /tmp/e && holders=\"$holders ${f%/environ}\"; fi; done; echo \"readable=$readable holders=[$holders]\"";
    const std::string found = probe(*s, scan);
    EXPECT_NE(found.find("holders=[]"), std::string::npos) << found;
    // The kernel and the shells are the agent's: their environments were read (and held no key).
    EXPECT_EQ(found.find("readable=0 "), std::string::npos) << found;
}

// 3c. The allow list: the calls the attack pass found open are refused, and a call on nobody's list
// answers ENOSYS. vsock has no network namespace: a sandbox bound a vsock port of the machine (whose own
// bind then failed), and the hypervisor's address is reachable in principle. modify_ldt (16-bit segments,
// a history of kernel bugs), memfd_secret (memory the kernel's own checks cannot see) and
// personality(ADDR_NO_RANDOMIZE) (address randomisation off, for exploits) were allowed too. Each is
// first shown to work on this machine outside the sandbox, so the test cannot pass on a kernel that
// lacks the call.
TEST(SandboxBoundary, CallsOffTheAllowListAreRefused) {
    const std::string code =
        "import ctypes, socket\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def sys(nr, *a):\n"
        "    r = libc.syscall(nr, *a); return 0 if r >= 0 else ctypes.get_errno()\n"
        "try:\n"
        "    s = socket.socket(40, socket.SOCK_STREAM); s.bind((0xffffffff, 40000 + __import__('os').getpid() % 20000)); v = 0\n"
        "except OSError as e: v = e.errno\n"
        "print('vsock', v)\n"
        "print('vsockhigh', sys(41, ctypes.c_ulong((1 << 32) | 40), 1, 0))\n"
        "print('modify_ldt', sys(154, 0, 0, 0))\n"
        "print('memfd_secret', sys(447, 0))\n"
        "print('norandom', sys(135, 0x0040000))\n"
        "print('query', sys(135, ctypes.c_ulong(0xffffffff)))\n"
        "print('process_madvise', sys(440, -1, 0, 0, 0, 0))\n";
    const std::string calls = "python3 -c \"" + code + "\"";
    // Outside: what the machine's kernel answers (the baseline each check below needs).
    const std::string outside = actionhost::testing::run_process({"/usr/bin/python3", "-c", code}, 30).output;
    auto parse = [](const std::string &text) {
        std::map<std::string, long> out;
        std::istringstream lines(text);
        std::string name;
        for (long value; lines >> name >> value;) out[name] = value;
        return out;
    };
    const auto machine = parse(outside);
    ASSERT_EQ(machine.size(), 7u) << outside;
    auto s = start_runtime("sandbox");
    const auto inside = parse(probe(*s, calls));
    ASSERT_EQ(inside.size(), 7u);
    // Open on this machine, refused inside with EPERM.
    for (const char *call : {"vsock", "vsockhigh", "modify_ldt", "memfd_secret"}) {
        if (machine.at(call) != 0) {
            std::cerr << "note: " << call << " fails on this machine too (errno " << machine.at(call) << ")\n";
            continue;
        }
        EXPECT_EQ(inside.at(call), 1) << call << " is not refused inside (errno " << inside.at(call) << ")";
    }
    // personality: address randomisation cannot be turned off; asking what it is still works.
    EXPECT_EQ(machine.at("norandom"), 0);
    EXPECT_NE(inside.at("norandom"), 0);
    EXPECT_EQ(inside.at("query"), 0);
    // A call on no list: ENOSYS inside, whatever the kernel would have said (EBADF here).
    EXPECT_NE(machine.at("process_madvise"), 38);
    EXPECT_EQ(inside.at("process_madvise"), 38);
}

// 5b. /etc inside lists nothing of the machine's that other users may not read, at any depth: before,
// only top-level entries were hidden, and names such as /etc/polkit-1/rules.d or a database's
// pg_hba.conf showed (unreadable, but listed). As root the test adds such an entry two levels down.
TEST(SandboxBoundary, EtcListsNothingOthersMayNotRead) {
    const std::string tag = "ahsec-etc-" + random_tag();
    struct Planted {
        std::string dir;
        ~Planted() {
            if (!dir.empty()) fs::remove_all(dir);
        }
    } planted;
    if (running_as_root()) {
        planted.dir = "/etc/" + tag;
        fs::create_directories(planted.dir + "/conf.d");
        std::ofstream(planted.dir + "/conf.d/private.conf") << "secret\n";
        fs::permissions(planted.dir + "/conf.d/private.conf", fs::perms::owner_read | fs::perms::owner_write);
        std::ofstream(planted.dir + "/conf.d/public.conf") << "public\n";
        fs::permissions(planted.dir + "/conf.d/public.conf", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    }
    // Every entry of the machine's /etc that others may not read (not under a hidden directory).
    std::vector<std::string> hidden;
    for (auto it = fs::recursive_directory_iterator("/etc", fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
        struct stat st{};
        if (::lstat(it->path().c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
        const bool unreadable = !(st.st_mode & S_IROTH) || (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH));
        if (!unreadable) continue;
        hidden.push_back(it->path().string());
        if (it->is_directory()) it.disable_recursion_pending();
    }
    if (running_as_root()) {
        EXPECT_NE(std::find(hidden.begin(), hidden.end(), planted.dir + "/conf.d/private.conf"), hidden.end());
    }
    auto s = start_runtime("sandbox");
    std::string check = "for p in";
    for (const auto &p : hidden) check += " '" + p + "'";
    check += "; do test -e \"$p\" || test -L \"$p\" && echo \"listed: $p\"; done; echo checked";
    const std::string listed = probe(*s, check);
    EXPECT_EQ(listed, "checked") << listed;
    if (running_as_root()) {
        EXPECT_EQ(probe(*s, "ls /etc/" + tag + "/conf.d"), "public.conf");
    }
}

namespace {

// The machine's TCP buffer memory in bytes (/proc/net/sockstat "TCP: ... mem PAGES").
long long machine_tcp_memory() {
    std::ifstream in("/proc/net/sockstat");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("TCP:", 0) != 0) continue;
        const size_t at = line.find(" mem ");
        if (at != std::string::npos) return std::stoll(line.substr(at + 5)) * ::sysconf(_SC_PAGESIZE);
    }
    return -1;
}

}  // namespace

// 6g. Socket memory outside the memory limit: cgroup v1 charges TCP buffers to no group, so 45 loopback
// TCP pairs filled in a 256 MiB sandbox took 528 MiB of the machine's TCP memory while the group saw
// 6 MiB. Now the group's TCP buffers are bounded (a quarter of the limit: 64 MiB here), whatever buffer
// sizes the sockets ask for. Callers without cgroups have no memory bound at all (docs/security.md); for
// them the namespace's own TCP settings cap what the kernel sizes by itself at 1 MiB a way per socket,
// which the unprivileged run checks (sockets that ask for more get up to the machine's
// net.core.rmem_max/wmem_max, which only the machine's root sets).
TEST(SandboxBoundary, SocketMemoryIsBoundedPerSandbox) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.memory_limit_mb", 256); });
    const std::string buffers = probe(*s, "cat /proc/sys/net/ipv4/tcp_rmem /proc/sys/net/ipv4/tcp_wmem");
    EXPECT_EQ(buffers, "4096\t131072\t1048576\n4096\t16384\t1048576") << buffers;
    const long long before = machine_tcp_memory();
    ASSERT_GE(before, 0);
    // 45 pairs on the sandbox's loopback, each filled from both ends until the kernel takes no more; the
    // sockets stay open (a background process) while the machine's TCP memory is read.
    const std::string script =
        std::string("ASK = ") + (running_as_root() ? "True" : "False") + "\n"
        "import socket, time\n"
        "pairs = []\n"
        "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(64)\n"
        "for i in range(45):\n"
        "    a = socket.create_connection(srv.getsockname()); b, _ = srv.accept()\n"
        "    for s in (a, b):\n"
        "        if ASK: s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)\n"
        "        s.setblocking(False)\n"
        "    pairs.append((a, b))\n"
        "chunk = b'x' * (1 << 20); total = 0\n"
        "for rnd in range(200):\n"
        "    moved = 0\n"
        "    for a, b in pairs:\n"
        "        for s in (a, b):\n"
        "            try: n = s.send(chunk); moved += n; total += n\n"
        "            except (BlockingIOError, OSError): pass\n"
        "    if moved == 0: break\n"
        "print('filled', total, flush=True)\n"
        "time.sleep(60)\n";
    json wrote = s->runtime->execute({{"action", "write"}, {"args", {{"path", "/tmp/fill.py"}, {"content", script}}}});
    ASSERT_EQ(wrote.value("observation", ""), "write") << wrote.dump();
    ASSERT_EQ(exit_code(run(*s->runtime, "python3 /tmp/fill.py > /tmp/fill.log 2>&1 &")), 0);
    const std::string filled = probe(*s, "for i in $(seq 1 600); do grep -q filled /tmp/fill.log && break; sleep 0.1; done; cat /tmp/fill.log");
    ASSERT_NE(filled.find("filled"), std::string::npos) << filled;
    const long long during = machine_tcp_memory();
    const long long grew = during - before;
    std::cerr << "note: " << filled << " the machine's TCP memory grew by " << (grew >> 20) << " MiB\n";
    // Root callers: the group's limit (64 MiB) and some slack for other tests' traffic. Without cgroups,
    // 90 sockets of at most 1 MiB + 1 MiB.
    const long long bound = running_as_root() ? (80ll << 20) : (200ll << 20);
    EXPECT_LT(grew, bound) << "the machine's TCP memory grew by " << (grew >> 20) << " MiB";
    run(*s->runtime, "pkill -f 'import socket' || true");
}

// 6h. Resource limits as nsjail sets them: no core file (a crash of a large process wrote its memory
// into the workspace), the largest file a process may write (8 GiB unless set), and, when asked, the
// address space. A process may lower them, never raise them; the host keeps answering past them.
TEST(SandboxBoundary, ResourceLimitsHoldAndCannotBeRaised) {
    // An ASan-built host reserves terabytes of address space for its shadow memory: it cannot start under
    // any RLIMIT_AS, so that limit is checked in the plain build only.
    const bool address_space = !actionhost::testing::kAddressSanitizer;
    auto s = start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.max_file_size_mb", 4);
        if (address_space) c.set("sandbox.address_space_mb", 2048);
    });
    const std::string limits = probe(*s,
        "python3 -c \"import resource as r\n"
        "print(r.getrlimit(r.RLIMIT_CORE), r.getrlimit(r.RLIMIT_FSIZE), r.getrlimit(r.RLIMIT_AS))\n"
        "try:\n    r.setrlimit(r.RLIMIT_FSIZE, (r.RLIM_INFINITY, r.RLIM_INFINITY)); print('raised')\n"
        "except ValueError as e: print('refused')\"");
    EXPECT_EQ(limits, std::string("(0, 0) (4194304, 4194304) ") + (address_space ? "(2147483648, 2147483648)" : "(-1, -1)") + "\nrefused")
        << limits;
    // Past the file limit: the writer fails (EFBIG, or SIGXFSZ for dd), nothing larger lands.
    json big = run(*s->runtime, "dd if=/dev/zero of=/workspace/big bs=1M count=8 2>&1; stat -c %s /workspace/big");
    EXPECT_NE(content(big).find("4194304"), std::string::npos) << big.dump();
    // Past the address space: an allocation fails inside the process, nothing else.
    if (address_space) {
        json mem = run(*s->runtime, "python3 -c \"b = bytearray(3 << 30)\" 2>&1 | tail -1");
        EXPECT_NE(content(mem).find("MemoryError"), std::string::npos) << mem.dump();
    }
    EXPECT_EQ(content(run(*s->runtime, "echo still answering")), "still answering");
    // A file of the host's own past the limit is an error observation, not a dead host.
    json wrote = s->runtime->execute({{"action", "write"}, {"args", {{"path", "/workspace/w.txt"}, {"content", std::string(6 << 20, 'x')}}}});
    EXPECT_EQ(wrote.value("observation", ""), "error") << wrote.dump().substr(0, 300);
    EXPECT_EQ(content(run(*s->runtime, "echo still answering")), "still answering");
}
