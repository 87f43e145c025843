// The docker runtime's container as a way onto the machine (docs/security.md, "The docker runtime"). The
// workspace is a directory of the machine bound into a container whose root is the machine's root (no
// user namespace unless the daemon remaps): a setuid file, a device node or a file capability made there
// by the agent works for every local user who runs it from the machine's side. Before: `cp /usr/bin/id
// /workspace/x; chmod 4755 x` inside, and `nobody` on the machine ran it as euid 0.
//
// Root only (the engine's socket is root's); the attacker on the machine's side is a child of the test
// that becomes nobody. A Docker engine is started here when none runs; the Debian image with python3 is
// made once per machine (mmdebstrap) and imported.
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "integration/runtimes/runtime_harness.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string content(const json &obs) { return obs.value("content", ""); }

// What `argv` prints when run on the machine as nobody (stdout and stderr), and its exit code.
std::pair<int, std::string> run_as_nobody(const std::vector<std::string> &argv) {
    int out[2];
    if (pipe(out) != 0) return {-1, "pipe failed"};
    const pid_t child = fork();
    if (child == 0) {
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(out[0]);
        if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(126);
        std::vector<char *> args;
        for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(out[1]);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
    close(out[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

// The workspace as `nobody` could reach it: a directory anyone may enter.
void open_to_everyone(const StartedRuntime &s) {
    fs::permissions(s.workspace->path(), fs::perms::all);
    for (fs::path p = fs::path(s.workspace->path()).parent_path(); p != "/" && !p.empty(); p = p.parent_path())
        fs::permissions(p, fs::perms::others_exec, fs::perm_options::add);
}

// A docker runtime on the Debian test image (python3 inside), or why there cannot be one here.
std::unique_ptr<StartedRuntime> start_on_debian(bool run_as_openhands, std::string &why_not) {
    if (geteuid() != 0) {
        why_not = "the Docker engine is root's";
        return nullptr;
    }
    static DockerForTests docker;  // one engine for the binary's tests (started here when none runs)
    if (!docker.available()) {
        why_not = docker.why_not();
        return nullptr;
    }
    const std::string debian = DockerForTests::debian_image(why_not);
    if (debian.empty()) return nullptr;
    return start_runtime("docker", [&](Config &c) {
        c.set("sandbox.base_container_image", debian);
        c.set("core.run_as_openhands", run_as_openhands);
    });
}

json container_of(actionhost::client::Runtime &rt) {
    auto r = engine_request("GET", "/containers/openhands-runtime-" + rt.session_id() + "/json");
    return json::parse(r.body, nullptr, false);
}

}  // namespace

// 1. Root inside a container plants set-user-ID and set-group-ID files in the workspace, a device node
// and a file capability; `nobody` on the machine then runs what was planted. Every plant is refused
// inside, and nothing in the workspace makes nobody root.
TEST(DockerSurface, PlantsInTheWorkspaceNeverReachTheMachine) {
    std::string why;
    auto s = start_on_debian(false, why);
    if (!s) GTEST_SKIP() << why;
    open_to_everyone(*s);
    const std::string ws = s->workspace_inside;
    ASSERT_EQ(content(run(*s->runtime, "id -u")), "0");
    // The plants, each reporting how it ended.
    const std::string plants =
        "cd " + ws + " && cp /usr/bin/id suid && cp /usr/bin/id sgid && cp /usr/bin/id caps && cp /usr/bin/id plain && "
        "chmod 4755 suid; echo suid=$?; chmod 2755 sgid; echo sgid=$?; "
        "install -m 6755 /usr/bin/id installed; echo install=$?; "
        "mknod dev c 1 3; echo mknod=$?; "
        "python3 -c \"import os; os.setxattr('caps', 'security.capability', "
        "bytes.fromhex('0100000200000000000000000000000000000000'))\" 2>/dev/null; echo setcap=$?; "
        "python3 -c \"import os; fd = os.open('opened', os.O_CREAT | os.O_WRONLY, 0o4755); print('open=ok')\" 2>/dev/null "
        "|| echo open=refused; "
        "chmod u+s plain; echo plain=$?";
    const std::string report = content(run(*s->runtime, plants, 60));
    for (const char *refused : {"suid=1", "sgid=1", "mknod=1", "setcap=1", "open=refused", "plain=1"})
        EXPECT_NE(report.find(refused), std::string::npos) << refused << " expected in:\n" << report;
    EXPECT_EQ(report.find("install=0"), std::string::npos) << report;
    // From the machine: no file of the workspace is setuid or setgid, none is a device, none has a
    // capability, and nobody running each stays nobody.
    for (const auto &e : fs::recursive_directory_iterator(s->workspace->path())) {
        struct stat st{};
        ASSERT_EQ(::lstat(e.path().c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << e.path() << " mode " << std::oct << st.st_mode;
        EXPECT_FALSE(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) << e.path() << " is a device";
        char value[64];
        EXPECT_LT(::lgetxattr(e.path().c_str(), "security.capability", value, sizeof value), 0) << e.path() << " has capabilities";
        if (S_ISREG(st.st_mode) && (st.st_mode & S_IXOTH) != 0) {
            const auto [code, out] = run_as_nobody({e.path().string(), "-u"});
            EXPECT_EQ(out.find("0\n"), std::string::npos) << e.path() << " run by nobody printed euid " << out;
        }
    }
}

// 2. The container's own confinement: no process gains privilege on exec (no_new_privs), the seccomp
// policy of the sandbox runtime applies (a vsock socket is refused), no capability to make device nodes
// or set file capabilities, ports published on the machine's loopback only, and the agent's user has a
// group of its own, not root's.
TEST(DockerSurface, TheContainerIsConfinedAndPublishesOnLoopback) {
    std::string why;
    auto s = start_on_debian(true, why);
    if (!s) GTEST_SKIP() << why;
    const std::string status = content(run(*s->runtime, "grep -E '^(NoNewPrivs|Seccomp|CapBnd):' /proc/self/status"));
    EXPECT_NE(status.find("NoNewPrivs:\t1"), std::string::npos) << status;
    EXPECT_NE(status.find("Seccomp:\t2"), std::string::npos) << status;
    const std::string vsock = content(run(*s->runtime, "python3 -c \"import socket\ntry:\n    socket.socket(40, socket.SOCK_STREAM); print('vsock made')\nexcept OSError as e: print('vsock', e.errno)\""));
    EXPECT_EQ(vsock, "vsock 1");
    // The family's high half is garbage to the kernel: it must not get vsock past the filter either.
    const std::string high = content(run(*s->runtime, "python3 -c \"import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                                                       "r = libc.syscall(41, ctypes.c_ulong((1 << 32) | 40), 1, 0)\n"
                                                       "print('high', r if r < 0 else 'made', ctypes.get_errno())\""));
    EXPECT_EQ(high, "high -1 1");
    // The agent's user: its own primary group, and not in group root.
    const std::string groups = content(run(*s->runtime, "id"));
    EXPECT_EQ(groups.find("(root)"), std::string::npos) << groups;
    const json c = container_of(*s->runtime);
    for (const auto &drop : {"MKNOD", "SETFCAP"}) {
        bool dropped = false;
        for (const auto &d : c["HostConfig"].value("CapDrop", json::array())) dropped = dropped || d == drop || d == std::string("CAP_") + drop;
        EXPECT_TRUE(dropped) << drop << " not dropped: " << c["HostConfig"].value("CapDrop", json::array()).dump();
    }
    for (const auto &[port, binding] : c["HostConfig"]["PortBindings"].items())
        EXPECT_EQ(binding[0].value("HostIp", ""), "127.0.0.1") << port << " is published on " << binding.dump();
    // Asked for, the old binding is still there.
    auto wide = start_runtime("docker", [&](Config &cfg) {
        cfg.set("sandbox.base_container_image", DockerForTests::image());
        cfg.set("sandbox.runtime_binding_address", "0.0.0.0");
    });
    const json wide_container = container_of(*wide->runtime);  // kept: items() does not own what it walks
    for (const auto &[port, binding] : wide_container["HostConfig"]["PortBindings"].items())
        EXPECT_EQ(binding[0].value("HostIp", ""), "0.0.0.0") << port;
}
