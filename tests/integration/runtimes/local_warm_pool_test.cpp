// The local backend's warm pool (`[sandbox] warm_pool_size`): a second start with the same
// configuration takes a pre-started host (faster than a cold start), and the pool's hosts are stopped
// when the client process exits.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Poco/Net/ServerSocket.h>
#include <actionhost/client/runtime.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/socket_holders.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::client;
using actionhost::testing::TempDir;
namespace fs = std::filesystem;

namespace {

struct Started {
    // Shared with the runtime's status callback and declared first, so it outlives the runtime (whose
    // destructor still reports STOPPED) however a Started is moved or destroyed.
    std::shared_ptr<std::vector<std::string>> details = std::make_shared<std::vector<std::string>>();
    std::unique_ptr<Runtime> runtime;
    double connect_ms = 0;
};

Started start_pooled(const TempDir &ws, const TempDir &state) {
    Started s;
    RuntimeOptions o;
    o.install_dir = actionhost::testing::build_path("");
    if (!o.install_dir.empty() && o.install_dir.back() == '/') o.install_dir.pop_back();
    o.config.set("core.runtime", "local");
    o.config.set("core.workspace_base", ws.path());
    o.config.set("core.state_dir", state.path());
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    o.config.set("sandbox.warm_pool_size", 1);
    o.env["HOME"] = state.path();  // the machine's ~/.bashrc would slow every host's bash
    o.on_status = [details = s.details](const std::string &, const std::string &detail) { details->push_back(detail); };
    s.runtime = Runtime::create(std::move(o));
    const auto t0 = std::chrono::steady_clock::now();
    s.runtime->connect();
    s.connect_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

bool from_pool(const Started &s) {
    for (const auto &d : *s.details)
        if (d.find("(from the warm pool)") != std::string::npos) return true;
    return false;
}

// actionhost processes whose working directory is `dir`.
std::vector<pid_t> hosts_in(const std::string &dir) {
    std::vector<pid_t> out;
    for (const auto &e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::error_code ec;
        const std::string exe = fs::read_symlink(e.path() / "exe", ec).string();
        if (ec || !exe.ends_with("/bin/actionhost")) continue;
        if (fs::read_symlink(e.path() / "cwd", ec).string() == dir && !ec) out.push_back(std::stoi(name));
    }
    // A host's own child between its fork and its exec (a shell being started) is still the host's
    // program in the host's directory: not a host.
    auto parent_of = [](pid_t pid) {
        std::ifstream status("/proc/" + std::to_string(pid) + "/status");
        std::string line;
        while (std::getline(status, line))
            if (line.rfind("PPid:", 0) == 0) return static_cast<pid_t>(std::atoi(line.c_str() + 5));
        return static_cast<pid_t>(0);
    };
    std::vector<pid_t> hosts;
    for (pid_t pid : out)
        if (std::find(out.begin(), out.end(), parent_of(pid)) == out.end()) hosts.push_back(pid);
    return hosts;
}

}  // namespace

// The client's own sockets (an agent's web server, say: Poco and most libraries open them without
// O_CLOEXEC) stay with the client: the hosts it starts, cold or for the pool, hold none of them.
TEST(LocalWarmPool, HostsInheritNoneOfTheClientsSockets) {
    Poco::Net::ServerSocket clients_listener(Poco::Net::SocketAddress("127.0.0.1", 0));
    const int port = clients_listener.address().port();
    ASSERT_EQ(actionhost::testing::processes_holding_listener(port), std::set<pid_t>{::getpid()});
    TempDir ws("ahpool-ws"), state("ahpool-state");
    Started s = start_pooled(ws, state);
    EXPECT_EQ(runtimes_test::exit_code(runtimes_test::run(*s.runtime, "true")), 0);
    std::vector<pid_t> hosts;
    for (int i = 0; i < 100 && hosts.size() < 2; ++i) {  // the pool's host starts in the background
        hosts = hosts_in(ws.path());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(hosts.size(), 2u) << "the runtime's host and the pool's";
    EXPECT_EQ(actionhost::testing::processes_holding_listener(port), std::set<pid_t>{::getpid()});
}

TEST(LocalWarmPool, LaterStartsAreServedFromThePool) {
    TempDir ws("ahpool-ws"), state("ahpool-state");
    Started cold = start_pooled(ws, state);
    EXPECT_FALSE(from_pool(cold));
    EXPECT_EQ(runtimes_test::run(*cold.runtime, "echo $OPENHANDS_SESSION_ID").value("content", ""),
              cold.runtime->session_id());
    cold.runtime->close();
    // The pool refills in the background after each start, as it would while an agent works; taken
    // before its host is up, a pooled start only waits for that host (no faster than a cold one).
    std::this_thread::sleep_for(std::chrono::seconds(1));

    Started warm = start_pooled(ws, state);
    EXPECT_TRUE(from_pool(warm)) << "second start was not served from the pool";
    // The pooled host was started for the pool, not for this session, and works like any other.
    EXPECT_EQ(runtimes_test::run(*warm.runtime, "echo $OPENHANDS_SESSION_ID").value("content", ""), "warm-pool");
    EXPECT_EQ(runtimes_test::run(*warm.runtime, "pwd").value("content", ""), fs::canonical(ws.path()).string());
    double best_warm = warm.connect_ms;
    warm.runtime->close();
    // Three pooled starts, each after the pool refilled: every one is served from the pool.
    for (int i = 0; i < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        Started again = start_pooled(ws, state);
        EXPECT_TRUE(from_pool(again));
        best_warm = std::min(best_warm, again.connect_ms);
        again.runtime->close();
    }
    // The figures are printed, not asserted: CI never fails on a time (a cold start now takes 16-30 ms
    // here, and a pooled one, which still runs the session's set-up commands, about the same: whether the
    // pool still pays is a measurement for bench/, noted in the issue).
    std::cout << "[ warm pool ] cold start " << cold.connect_ms << " ms, from the pool (best of 3) " << best_warm << " ms\n";
}

TEST(LocalWarmPool, PoolHostsStopWhenTheClientExits) {
    TempDir dir("ahpool-exit");
    fs::create_directories(dir / "ws");
    const std::string ws = fs::canonical(dir / "ws").string();
    const std::string ahctl = actionhost::testing::build_path("bin/ahctl");
    const std::string home = "HOME=" + dir.path();
    pid_t pid = fork();
    if (pid == 0) {
        putenv(const_cast<char *>(home.c_str()));
        execl(ahctl.c_str(), "ahctl", "--state-dir", (dir.path() + "/state").c_str(), "-r", "local", "-q", "-w", ws.c_str(),
              "--set", "sandbox.warm_pool_size=1", "run", "--", "sleep 4", static_cast<char *>(nullptr));
        _exit(127);
    }
    ASSERT_GT(pid, 0);
    size_t peak = 0;
    int status = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < deadline) {
        peak = std::max(peak, hosts_in(ws).size());
        if (waitpid(pid, &status, WNOHANG) == pid) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (status == -1) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        FAIL() << "ahctl did not finish";
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_GE(peak, 2u) << "the session's host and a warm one should have run side by side";
    std::vector<pid_t> left = hosts_in(ws);
    for (int i = 0; i < 200 && !left.empty(); ++i) {  // stopped at exit; allow the kernel a moment
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        left = hosts_in(ws);
    }
    EXPECT_TRUE(left.empty()) << left.size() << " host(s) outlived the client";
    for (pid_t p : left) kill(-p, SIGKILL);
}
