// Faults, each followed by a working next action and a clear observation: the shell, the IPython
// kernel or the browser killed with SIGKILL mid-action; a full disk during a write; a plugin that
// segfaults; orphaned processes re-parented to the host.
#include <gtest/gtest.h>

#include "support/sanitizers.hpp"
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/wire_client.hpp>
#include <atomic>
#include <filesystem>
#include <future>
#include <thread>

#include "process_tree.hpp"
#include "support/host_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
using reliability_test::descendants;
using reliability_test::wait_for;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Runs `action` on a connection of its own (the test's HostProcess connection stays free).
std::future<HttpResponse> execute_async(int port, const json &action) {
    return std::async(std::launch::async, [port, action] {
        Http http("127.0.0.1", port, 180);
        return http.post_json("/execute_action", json({{"action", action}}).dump());
    });
}

std::optional<reliability_test::ProcInfo> find_descendant(pid_t root, const std::function<bool(const reliability_test::ProcInfo &)> &pred) {
    for (const auto &p : descendants(root))
        if (pred(p)) return p;
    return std::nullopt;
}

int exit_code_of(const json &obs) { return obs["extras"]["metadata"].value("exit_code", -1000); }

json write_action(const std::string &path, const std::string &content) {
    return {{"action", "write"}, {"args", {{"path", path}, {"content", content}}}};
}

std::vector<std::string> temp_leftovers(const std::string &dir) {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.path().filename().string().find("tmp") != std::string::npos) out.push_back(e.path().filename().string());
    return out;
}

}  // namespace

TEST(Faults, BashKilledMidCommandThenTheNextCommandWorks) {
    HostProcess host;
    ASSERT_EQ(exit_code_of(host.run("echo warm")), 0);
    auto pending = execute_async(host.port(), {{"action", "run"},
                                               {"args", {{"command", "sleep 37; echo never"}, {"blocking", true}}},
                                               {"timeout", 120}});
    std::optional<reliability_test::ProcInfo> sleeper;
    ASSERT_TRUE(wait_for(30, [&] {
        sleeper = find_descendant(host.pid(), [](const auto &p) { return p.cmdline == "sleep 37 "; });
        return sleeper.has_value();
    }));
    const pid_t shell = sleeper->ppid;
    ASSERT_NE(shell, host.pid());
    ASSERT_EQ(::kill(shell, SIGKILL), 0);
    ASSERT_EQ(pending.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "the action never returned";
    const HttpResponse killed = pending.get();
    ::kill(sleeper->pid, SIGKILL);  // the orphaned sleep of the killed shell
    ASSERT_EQ(killed.status, 200) << killed.body;
    const json obs = killed.json();
    EXPECT_EQ(obs["observation"], "run") << obs.dump();
    EXPECT_EQ(exit_code_of(obs), 128 + SIGKILL) << obs.dump();
    EXPECT_EQ(obs["content"].get<std::string>().find("never"), std::string::npos) << obs.dump();
    // A new shell serves the next command, in the directory the old one was in.
    const json next = host.run("echo after; pwd");
    EXPECT_EQ(exit_code_of(next), 0) << next.dump();
    EXPECT_NE(next["content"].get<std::string>().find("after\n" + host.working_dir()), std::string::npos) << next.dump();
}

TEST(Faults, JupyterKernelKilledMidCellThenTheNextCellWorks) {
    HostOptions o;
    o.args = {"--plugins", "jupyter"};
    o.start_timeout_s = 60;
    o.env = {{"ACTIONHOST_JUPYTER_TIMEOUT", "60"}};
    HostProcess host(o);
    auto cell = [](const std::string &code) {
        return json{{"action", "run_ipython"}, {"args", {{"code", code}, {"include_extra", false}}}, {"timeout", 120}};
    };
    const std::string pid_text = host.execute(cell("import os; os.getpid()"))["content"];
    const pid_t kernel = std::stoi(pid_text);
    ASSERT_GT(kernel, 1);
    ASSERT_TRUE(find_descendant(host.pid(), [&](const auto &p) { return p.pid == kernel; }).has_value())
        << "the kernel is not a process of this host";
    auto pending = execute_async(host.port(), cell("import time\nprint('cell started', flush=True)\ntime.sleep(37)"));
    // The cell is running once the kernel has a sleeping main thread; give it a moment to get there.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ASSERT_EQ(::kill(kernel, SIGKILL), 0);
    ASSERT_EQ(pending.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "the cell never returned";
    const HttpResponse killed = pending.get();
    ASSERT_EQ(killed.status, 200) << killed.body;
    const std::string content = killed.json()["content"];
    EXPECT_NE(content.find("kernel died while running this cell"), std::string::npos) << content;
    EXPECT_NE(content.find("signal 9"), std::string::npos) << content;
    const std::string next = host.execute(cell("print(6 * 7)"))["content"];
    EXPECT_NE(next.find("42"), std::string::npos) << next;
    EXPECT_NE(next.find("IPython kernel restarted"), std::string::npos) << next;
}

namespace {

// Serves /ok at once and holds /hang open (up to 30 s, or until the server stops): a navigation that
// is still in flight when the browser is killed.
class HangingPages {
  public:
    HangingPages() : socket_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
        auto *params = new Poco::Net::HTTPServerParams;
        params->setMaxThreads(8);
        server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket_, params);
        server_->start();
    }
    ~HangingPages() {
        stop_ = true;
        server_->stopAll(true);
    }
    std::string url(const std::string &path) const {
        return "http://127.0.0.1:" + std::to_string(socket_.address().port()) + path;
    }
    std::atomic<int> hang_requests{0};
    std::atomic<bool> stop_{false};

  private:
    struct Handler : Poco::Net::HTTPRequestHandler {
        explicit Handler(HangingPages &p) : pages(p) {}
        void handleRequest(Poco::Net::HTTPServerRequest &req, Poco::Net::HTTPServerResponse &resp) override {
            if (req.getURI() == "/hang") {
                ++pages.hang_requests;
                for (int i = 0; i < 300 && !pages.stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            const std::string body = "<html><head><title>Fine</title></head><body><h1>Fine page</h1></body></html>";
            resp.setContentType("text/html");
            resp.setContentLength(static_cast<std::streamsize>(body.size()));
            resp.send() << body;
        }
        HangingPages &pages;
    };
    struct Factory : Poco::Net::HTTPRequestHandlerFactory {
        explicit Factory(HangingPages &p) : pages(p) {}
        Poco::Net::HTTPRequestHandler *createRequestHandler(const Poco::Net::HTTPServerRequest &) override {
            return new Handler(pages);
        }
        HangingPages &pages;
    };
    Poco::Net::ServerSocket socket_;
    std::unique_ptr<Poco::Net::HTTPServer> server_;
};

json browse(const std::string &url) {
    return {{"action", "browse"}, {"args", {{"url", url}, {"thought", ""}, {"return_axtree", false}}}, {"timeout", 60}};
}

}  // namespace

TEST(Faults, ChromiumKilledMidNavigationThenTheNextBrowseWorks) {
    HangingPages pages;
    HostOptions o;
    o.start_timeout_s = 60;
    HostProcess host(o);
    const json first = host.execute(browse(pages.url("/ok")));
    ASSERT_EQ(first["observation"], "browse") << first.dump().substr(0, 1000);
    ASSERT_NE(first["content"].get<std::string>().find("Fine page"), std::string::npos) << first.dump().substr(0, 1000);
    auto pending = execute_async(host.port(), browse(pages.url("/hang")));
    ASSERT_TRUE(wait_for(30, [&] { return pages.hang_requests.load() > 0; })) << "the browser never asked for /hang";
    int killed_count = 0;
    for (const auto &p : descendants(host.pid()))
        if (p.comm.find("chrom") != std::string::npos || p.cmdline.find("chrom") != std::string::npos)
            killed_count += ::kill(p.pid, SIGKILL) == 0;
    ASSERT_GT(killed_count, 0) << "no chromium process under the host";
    ASSERT_EQ(pending.wait_for(std::chrono::seconds(90)), std::future_status::ready) << "the browse never returned";
    const HttpResponse during = pending.get();
    ASSERT_EQ(during.status, 200) << during.body;
    const json obs = during.json();
    EXPECT_EQ(obs["extras"].value("error", false), true) << obs.dump().substr(0, 1000);
    EXPECT_FALSE(obs["extras"].value("last_browser_action_error", std::string()).empty() && obs["content"].get<std::string>().empty())
        << obs.dump().substr(0, 1000);
    std::cerr << "[observation of the killed navigation] " << obs.dump().substr(0, 600) << "\n";
    pages.stop_ = true;
    const json next = host.execute(browse(pages.url("/ok")));
    EXPECT_EQ(next["observation"], "browse") << next.dump().substr(0, 1000);
    EXPECT_NE(next["content"].get<std::string>().find("Fine page"), std::string::npos) << next.dump().substr(0, 1000);
}

TEST(Faults, FileTooLargeDuringAWriteLeavesTheOldContentAndNoTempFile) {
    HostProcess host;
    const std::string path = host.working_dir() + "/data.txt";
    ASSERT_EQ(host.execute(write_action(path, "old content, whole"))["observation"], "write");
    const std::string old_content = read_file(path);  // as the write action left it (newline added)
    // The host may write at most 64 KiB per file from now on (RLIMIT_FSIZE; a write past it fails with
    // EFBIG as on a full disk). Only the host process is limited, not this test.
    const rlimit lim{64 * 1024, 64 * 1024};
    ASSERT_EQ(::prlimit(host.pid(), RLIMIT_FSIZE, &lim, nullptr), 0) << std::strerror(errno);
    const json big = host.execute(write_action(path, std::string(1 << 20, 'x')));
    EXPECT_EQ(big["observation"], "error") << big.dump().substr(0, 500);
    EXPECT_NE(big["content"].get<std::string>().find("File too large"), std::string::npos) << big.dump().substr(0, 500);
    EXPECT_EQ(read_file(path), old_content);
    // The editor (agent_skills, in the host process) is held to the same rule.
    const json edit = host.execute({{"action", "edit"},
                                    {"args", {{"command", "str_replace"}, {"path", path}, {"old_str", "whole"},
                                              {"new_str", std::string(1 << 20, 'y')}, {"impl_source", "oh_aci"}}}});
    EXPECT_EQ(read_file(path), old_content) << edit.dump().substr(0, 500);
    EXPECT_NE(edit["content"].get<std::string>().find("File too large"), std::string::npos) << edit.dump().substr(0, 500);
    EXPECT_EQ(temp_leftovers(host.working_dir()), std::vector<std::string>{});
    // Still serving, and a write that fits works.
    EXPECT_EQ(host.execute(write_action(path, "new\n"))["observation"], "write");
    EXPECT_EQ(read_file(path).rfind("new\n", 0), 0u);
    EXPECT_EQ(host.get("/alive").status, 200);
}

TEST(Faults, FullDiskDuringAWriteLeavesTheOldContentAndNoTempFile) {
    // A real ENOSPC: a 1 MiB tmpfs this test mounts (needs CAP_SYS_ADMIN; skipped without it).
    TempDir mnt("ahfull");
    if (::mount("tmpfs", mnt.path().c_str(), "tmpfs", 0, "size=1m,mode=0777") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    struct Unmount {
        std::string p;
        ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
    } unmount{mnt.path()};
    HostOptions o;
    o.working_dir = mnt.path();
    HostProcess host(o);
    const std::string path = mnt.path() + "/data.txt";
    ASSERT_EQ(host.execute(write_action(path, "old content, whole"))["observation"], "write");
    const std::string old_content = read_file(path);  // as the write action left it (newline added)
    const json big = host.execute(write_action(path, std::string(3 << 20, 'x')));
    EXPECT_EQ(big["observation"], "error") << big.dump().substr(0, 500);
    EXPECT_NE(big["content"].get<std::string>().find("No space left on device"), std::string::npos) << big.dump().substr(0, 500);
    EXPECT_EQ(read_file(path), old_content);
    EXPECT_EQ(temp_leftovers(mnt.path()), std::vector<std::string>{});
    EXPECT_EQ(host.execute(write_action(path, "new\n"))["observation"], "write");
    EXPECT_EQ(read_file(path).rfind("new\n", 0), 0u);
    host.stop();
}

TEST(Faults, OrphansReparentedToTheHostAreReaped) {
    // ACTIONHOST_CHILD_SUBREAPER=1 makes the host what it is as PID 1 of a container: the parent of
    // every orphan below it. An orphan that exits must not stay a zombie.
    HostOptions o;
    o.env = {{"ACTIONHOST_CHILD_SUBREAPER", "1"}};
    HostProcess host(o);
    // Each subshell exits at once; its `sleep` is orphaned and re-parented to the host. The test ends the
    // orphans itself (no race with a sleep's own end on a loaded machine) and the host must reap them.
    ASSERT_EQ(exit_code_of(host.run("(sleep 300 &); (sleep 300 &); echo spawned")), 0);
    auto orphans = [&] {
        std::vector<pid_t> out;
        for (const auto &p : descendants(host.pid()))
            if (p.ppid == host.pid() && (p.cmdline.rfind("sleep 300", 0) == 0 || p.state == 'Z')) out.push_back(p.pid);
        return out;
    };
    // They were re-parented to the host (the test can fail: without the subreaper they go elsewhere).
    ASSERT_TRUE(wait_for(10, [&] { return orphans().size() == 2; })) << "orphans under the host: " << orphans().size();
    for (pid_t p : orphans()) ::kill(p, SIGKILL);
    EXPECT_TRUE(wait_for(30, [&] { return orphans().empty(); })) << "zombies left: " << orphans().size();
    EXPECT_EQ(exit_code_of(host.run("echo still-fine")), 0);
    EXPECT_NE(host.log().find("reaping orphaned processes"), std::string::npos);
}

TEST(Faults, ASegfaultingPluginTakesTheHostDownAndTheClientSaysSoClearly) {
    // Plugins run in the host's process (the host trusts its plugins): a segfault in one
    // ends the host. This documents it; docs/reliability.md proposes out-of-process isolation.
    HostOptions o;
    o.args = {"--plugin-dir", AH_FIXTURE_DIR};
    HostProcess host(o);
    ASSERT_EQ(exit_code_of(host.run("echo before")), 0);
    actionhost::client::WirePolicy policy;
    policy.closed_wait_min_s = 0.05;
    policy.closed_wait_max_s = 0.2;
    actionhost::client::WireClient client("http://127.0.0.1:" + std::to_string(host.port()), "", policy);
    std::string error;
    try {
        client.execute({{"action", "fixture_segfault"}, {"args", json::object()}});
    } catch (const actionhost::client::WireError &e) {
        error = e.what();
    }
    EXPECT_NE(error.find("died while handling /execute_action"), std::string::npos) << error;
    const int status = host.stop();
    // Killed by SIGSEGV; under ASan or TSan the sanitizer's SEGV handler reports, then aborts
    // (abort_on_error=1) or exits non-zero (TSan: 66).
    const bool sanitizer_end = (actionhost::testing::kAddressSanitizer || actionhost::testing::kThreadSanitizer) &&
                               ((WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) || (WIFEXITED(status) && WEXITSTATUS(status) != 0));
    EXPECT_TRUE((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || sanitizer_end) << "status " << status;
}
