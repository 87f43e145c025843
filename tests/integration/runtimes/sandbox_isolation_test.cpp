// What the sandbox backend isolates, proven with real workloads inside it.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime_harness.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using nlohmann::json;

namespace {

std::string read_text(const std::string &path) {
    std::ifstream in(path);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return s;
}

// A TCP listener on the machine's loopback, outside any sandbox.
struct OutsideListener {
    int fd = -1, port = 0;
    OutsideListener() {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
        socklen_t len = sizeof a;
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
        port = ntohs(a.sin_port);
        listen(fd, 16);
    }
    ~OutsideListener() { close(fd); }
};

}  // namespace

TEST(SandboxIsolation, NoNetworkByDefault) {
    OutsideListener outside;
    auto s = start_runtime("sandbox");
    EXPECT_EQ(s->runtime->url().rfind("unix://", 0), 0u) << s->runtime->url();
    std::string probe = "timeout 5 bash -c 'echo x > /dev/tcp/127.0.0.1/" + std::to_string(outside.port) + "' 2>/dev/null && echo reached || echo blocked";
    EXPECT_EQ(run(*s->runtime, probe).value("content", ""), "blocked");
    json links = run(*s->runtime, "ls /sys/class/net 2>/dev/null | wc -l; cat /proc/net/dev | grep -c ':'");
    EXPECT_EQ(links.value("content", "").substr(links.value("content", "").find('\n') + 1), "1") << links.dump();  // only lo
}

TEST(SandboxIsolation, NetworkWhenAsked) {
    OutsideListener outside;
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.network", true); });
    EXPECT_EQ(s->runtime->url().rfind("http://127.0.0.1:", 0), 0u) << s->runtime->url();
    std::string probe = "timeout 5 bash -c 'echo x > /dev/tcp/127.0.0.1/" + std::to_string(outside.port) + "' 2>/dev/null && echo reached || echo blocked";
    EXPECT_EQ(run(*s->runtime, probe).value("content", ""), "reached");
}

TEST(SandboxIsolation, WritesOutsideTheWorkspaceFail) {
    auto s = start_runtime("sandbox");
    for (const char *path : {"/etc/ah_probe", "/usr/ah_probe", "/ah_probe", "/home/ah_probe", "/var/ah_probe"}) {
        json obs = run(*s->runtime, std::string("touch ") + path);
        EXPECT_NE(exit_code(obs), 0) << path << ": " << obs.dump();
        EXPECT_FALSE(std::filesystem::exists(path)) << path;
    }
    EXPECT_NE(run(*s->runtime, "touch /etc/ah_probe").value("content", "").find("Read-only file system"), std::string::npos);
    EXPECT_EQ(exit_code(run(*s->runtime, "touch /workspace/ok && touch /tmp/ok")), 0);
    EXPECT_TRUE(std::filesystem::exists(s->workspace->path() + "/ok"));
    // The sandbox's /tmp is its own.
    EXPECT_EQ(run(*s->runtime, "ls /tmp").value("content", "").find("ahrt-"), std::string::npos);
    // Mounting is refused (seccomp + user namespace), so the read-only root cannot be undone.
    EXPECT_NE(exit_code(run(*s->runtime, "mount -t tmpfs none /mnt")), 0);
}

TEST(SandboxIsolation, OutsideProcessesAreInvisible) {
    pid_t outside = fork();
    if (outside == 0) {
        execlp("sleep", "sleep", "987654", static_cast<char *>(nullptr));
        _exit(127);
    }
    auto s = start_runtime("sandbox");
    json obs = run(*s->runtime, "ps -eo args | grep -c '[s]leep 987654'; ps -e --no-headers | wc -l; hostname");
    std::string content = obs.value("content", "");
    kill(outside, SIGKILL);
    waitpid(outside, nullptr, 0);
    EXPECT_EQ(content.substr(0, content.find('\n')), "0") << content;
    int processes = std::stoi(content.substr(content.find('\n') + 1));
    EXPECT_LT(processes, 30) << content;  // the sandbox's own few processes only
    EXPECT_EQ(content.substr(content.rfind('\n') + 1), "sandbox");
    EXPECT_EQ(run(*s->runtime, "kill -0 1 && cat /proc/1/comm").value("content", ""), "ah-sandbox-init");
}

// pid 1 moves itself into the v1 groups (a `tasks` file opened by ah-sandbox-init, no RCU wait): every
// process of the sandbox, the first one included, is in every group, and no other process is.
TEST(SandboxIsolation, EveryProcessOfTheSandboxIsInEachOfItsGroups) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.pids_limit", 200); });
    const std::string id = s->runtime->runtime_id();
    if (!std::filesystem::exists("/sys/fs/cgroup/pids/actionhost/" + id)) GTEST_SKIP() << "no cgroup v1 groups here (not root?)";
    run(*s->runtime, "sleep 4242 >/dev/null 2>&1 &");
    auto members = [&](const std::string &controller) {
        std::set<std::string> pids;
        std::istringstream in(read_text("/sys/fs/cgroup/" + controller + "/actionhost/" + id + "/cgroup.procs"));
        for (std::string pid; in >> pid;) pids.insert(pid);
        return pids;
    };
    std::set<std::string> in_pids;
    bool pid1 = false, sleeper = false;
    for (int i = 0; i < 40 && !sleeper; ++i, usleep(50000)) {  // up to 2 s for the background job's exec
        in_pids = members("pids");
        pid1 = sleeper = false;
        for (const auto &pid : in_pids) {
            std::string status = read_text("/proc/" + pid + "/status"), cmdline = read_text("/proc/" + pid + "/cmdline");
            // NSpid: the machine's pid, then the sandbox's: "NSpid:\t<machine>\t1" is the sandbox's pid 1.
            pid1 = pid1 || status.find("NSpid:\t" + pid + "\t1\n") != std::string::npos;
            sleeper = sleeper || cmdline.rfind(std::string("sleep\0" "4242", 10), 0) == 0;
        }
    }
    EXPECT_EQ(members("memory"), in_pids);
    EXPECT_EQ(members("freezer"), in_pids);
    EXPECT_TRUE(pid1) << "the sandbox's pid 1 is not in its pids group";
    EXPECT_TRUE(sleeper) << "a command's process is not in its pids group";
    EXPECT_GE(in_pids.size(), 4u);  // pid 1, the host, its shell, the sleeper
    EXPECT_EQ(in_pids.count(std::to_string(getpid())), 0u);
}

TEST(SandboxIsolation, ForkBombIsStoppedByThePidsLimit) {
    auto s = start_runtime("sandbox", [](Config &c) { c.set("sandbox.pids_limit", 96); });
    std::string cg = "/sys/fs/cgroup/pids/actionhost/" + s->runtime->runtime_id();
    bool v1 = std::filesystem::exists(cg);
    if (v1) {
        EXPECT_EQ(read_text(cg + "/pids.max"), "96\n");
    }
    // The bomb spreads in the background against the limit.
    run(*s->runtime, "bomb() { bomb | bomb & }; bomb", 4);
    if (v1) {
        std::string events;
        for (int i = 0; i < 200; ++i) {  // up to 20 s for the bomb to reach the limit on a loaded machine
            events = read_text(cg + "/pids.events");
            if (events != "max 0\n") break;
            usleep(100000);
        }
        EXPECT_NE(events, "max 0\n") << "the limit was never hit";
        for (int i = 0; i < 10; ++i) {
            EXPECT_LE(std::stol(read_text(cg + "/pids.current")), 96);
            usleep(50000);
        }
    }
    // The host still answers, and the outside machine can still fork.
    EXPECT_TRUE(s->runtime->wire().alive());
    pid_t p = fork();
    if (p == 0) _exit(0);
    ASSERT_GT(p, 0);
    waitpid(p, nullptr, 0);
    s->runtime->close();  // kills the whole pid namespace, bomb included
    if (v1) {
        EXPECT_FALSE(std::filesystem::exists(cg)) << "cgroup removed after close";
    }
}

TEST(SandboxIsolation, MemoryHogIsKilledAndTheHostSurvives) {
    const int limit_mb = 192 + actionhost::testing::kSanitizerHostMemoryMb;
    auto s = start_runtime("sandbox", [&](Config &c) { c.set("sandbox.memory_limit_mb", limit_mb); });
    json hog = run(*s->runtime, "python3 -c \"b = bytearray(" + std::to_string(2 * limit_mb) +
                                    " * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('survived')\"", 60);
    EXPECT_NE(exit_code(hog), 0) << hog.dump();
    EXPECT_EQ(hog.value("content", "").find("survived"), std::string::npos) << hog.dump();
    json after = run(*s->runtime, "echo still here");
    EXPECT_EQ(after.value("content", ""), "still here");
}

TEST(SandboxIsolation, PauseFreezesAndResumeThaws) {
    auto s = start_runtime("sandbox");
    std::string freezer = "/sys/fs/cgroup/freezer/actionhost/" + s->runtime->runtime_id() + "/freezer.state";
    if (!std::filesystem::exists(freezer)) GTEST_SKIP() << "no cgroup v1 freezer here";
    s->runtime->pause();
    EXPECT_EQ(read_text(freezer), "FROZEN\n");
    s->runtime->resume();
    EXPECT_EQ(read_text(freezer), "THAWED\n");
    EXPECT_EQ(run(*s->runtime, "echo thawed").value("content", ""), "thawed");
}
