// Out-of-process plugins (docs/plugin-guide.md, "Isolation"): the fixture fx_isolated says
// "isolation": "process" in its manifest, so the real host runs it in a worker process of its own. It
// answers with the pid it runs in, or segfaults, hangs or exits as args.do says: the call it breaks gets an
// error observation naming what happened, the host keeps answering, and the next call gets a new worker.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "support/host_process.hpp"

using namespace actionhost::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

json isolated(const std::string &what, double seconds = 0) {
    return {{"action", "fixture_isolated"}, {"args", {{"do", what}, {"seconds", seconds}}}};
}

// The worker's pid, from an answer of "answer" ("pid N").
int pid_of(const json &obs) {
    const std::string c = obs.value("content", std::string());
    return c.rfind("pid ", 0) == 0 ? std::atoi(c.c_str() + 4) : -1;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

json execute_apart(HostProcess &host, const json &action, const std::string &session) {
    Http http("127.0.0.1", host.port(), 60);
    return http.post_json("/execute_action", json{{"action", action}, {"session", session}}.dump()).json();
}

HostOptions fixture_host(std::vector<std::string> more = {}) {
    HostOptions o;
    o.args = {"--plugin-dir", AH_FIXTURE_DIR};
    o.args.insert(o.args.end(), more.begin(), more.end());
    return o;
}

}  // namespace

TEST(HostIsolation, AnIsolatedPluginAnswersFromAnotherProcess) {
    HostProcess host(fixture_host());
    const json obs = host.execute(isolated("answer"), "s1");
    EXPECT_EQ(obs["observation"], "fixture") << obs.dump();
    const int pid = pid_of(obs);
    EXPECT_GT(pid, 0) << obs.dump();
    EXPECT_NE(pid, host.pid());
    EXPECT_EQ(obs["extras"]["session"], "s1");
    // The same worker answers the next call, and the plugin's log lines reach the host's log.
    EXPECT_EQ(pid_of(host.execute(isolated("log"))), pid);
    EXPECT_TRUE(contains(host.log(), "[fx_isolated] a line from the isolated fixture")) << host.log();
    EXPECT_TRUE(contains(host.log(), "in a process of its own")) << host.log();
    // The worker holds its standard streams and its socket to the host, nothing else of the host's (its
    // listening socket, the audit trail's descriptor): it starts through common/process.
    std::vector<std::string> fds;
    for (const auto &e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
        fds.push_back(e.path().filename().string());
    std::sort(fds.begin(), fds.end());
    EXPECT_EQ(fds, (std::vector<std::string>{"0", "1", "2", "3"}));
    // An in-process plugin beside it is unaffected.
    EXPECT_EQ(host.execute({{"action", "fixture_echo"}})["observation"], "fixture");
}

TEST(HostIsolation, ASegfaultAnswersThatCallAndTheNextOneGetsANewWorker) {
    HostProcess host(fixture_host());
    const int before = pid_of(host.execute(isolated("answer")));
    ASSERT_GT(before, 0);
    const json crashed = host.execute(isolated("segv"));
    EXPECT_EQ(crashed["observation"], "error") << crashed.dump();
    const std::string text = crashed.value("content", std::string());
    EXPECT_TRUE(contains(text, "fx_isolated")) << text;
    EXPECT_TRUE(contains(text, "signal 11")) << text;
    EXPECT_TRUE(contains(text, "pid " + std::to_string(before))) << text;
    // The host answers other requests, and the plugin again, from a new process.
    EXPECT_EQ(host.get("/alive").status, 200);
    const int after = pid_of(host.execute(isolated("answer")));
    EXPECT_GT(after, 0);
    EXPECT_NE(after, before);
    EXPECT_EQ(::kill(before, 0), -1);  // the crashed worker is gone (reaped, not a zombie of the host)
    EXPECT_TRUE(contains(host.log(), "was started again")) << host.log();
}

TEST(HostIsolation, AnExitDuringACallIsAnsweredWithItsStatus) {
    HostProcess host(fixture_host());
    const json exited = host.execute(isolated("exit"));
    EXPECT_EQ(exited["observation"], "error") << exited.dump();
    EXPECT_TRUE(contains(exited.value("content", std::string()), "exited with status 3")) << exited.dump();
    EXPECT_GT(pid_of(host.execute(isolated("answer"))), 0);
}

TEST(HostIsolation, AHangIsAnsweredAfterTheDeadlineAndTheWorkerRestarted) {
    HostProcess host(fixture_host());
    const int before = pid_of(host.execute(isolated("answer")));
    json hang = isolated("hang");
    hang["timeout"] = 1;  // the call's deadline: its timeout, plus the host's grace (5 s)
    const auto t0 = Clock::now();
    const json obs = host.execute(hang);
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(obs["observation"], "error") << obs.dump();
    EXPECT_TRUE(contains(obs.value("content", std::string()), "did not answer within")) << obs.dump();
    EXPECT_GE(took, 5.0);
    EXPECT_LT(took, 30.0);
    const int after = pid_of(host.execute(isolated("answer")));
    EXPECT_GT(after, 0);
    EXPECT_NE(after, before);
}

TEST(HostIsolation, ConcurrentCallsOfTwoSessionsAreBothAnswered) {
    HostProcess host(fixture_host());
    host.execute(isolated("answer"));  // loaded
    const auto t0 = Clock::now();
    auto a = std::async(std::launch::async, [&] { return execute_apart(host, isolated("answer", 1.5), "a"); });
    auto b = std::async(std::launch::async, [&] { return execute_apart(host, isolated("answer", 1.5), "b"); });
    const json ja = a.get(), jb = b.get();
    EXPECT_EQ(ja["extras"]["session"], "a") << ja.dump();
    EXPECT_EQ(jb["extras"]["session"], "b") << jb.dump();
    EXPECT_EQ(pid_of(ja), pid_of(jb));
    // Both ran at once in the one worker, each on its own thread.
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 2.9);
}

TEST(HostIsolation, ACrashAnswersEveryCallRunningAndOnlyThem) {
    HostProcess host(fixture_host());
    host.execute(isolated("answer"));
    auto slow = std::async(std::launch::async, [&] { return execute_apart(host, isolated("answer", 3), "slow"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const json crashed = execute_apart(host, isolated("segv"), "crash");
    const json other = slow.get();
    EXPECT_EQ(crashed["observation"], "error") << crashed.dump();
    EXPECT_EQ(other["observation"], "error") << other.dump();
    EXPECT_TRUE(contains(other.value("content", std::string()), "signal 11")) << other.dump();
    EXPECT_EQ(host.execute(isolated("answer"), "slow")["observation"], "fixture");
}

TEST(HostIsolation, PartialOutputIsStreamedFromTheWorker) {
    HostProcess host(fixture_host());
    host.execute(isolated("answer"), "follow");
    HttpResponse streamed;
    std::atomic<bool> answered{false};
    std::thread follower([&] {
        Http http("127.0.0.1", host.port(), 60);
        streamed = http.get("/stream?session=follow&once=1");
        answered = true;
    });
    for (int i = 0; i < 100 && !answered; ++i) {  // until the follower, once subscribed, saw one action end
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        host.execute(isolated("answer"), "follow");
    }
    follower.join();
    const std::string &b = streamed.body;
    const size_t one = b.find("{\"chunk\":\"isolated one;\"}");
    const size_t two = b.find("{\"chunk\":\"isolated two;\",\"stream\":\"stderr\"}");
    const size_t end = b.find("event: action_end");
    ASSERT_NE(one, std::string::npos) << b;
    ASSERT_NE(two, std::string::npos) << b;
    ASSERT_NE(end, std::string::npos) << b;
    EXPECT_LT(one, two);
    EXPECT_LT(two, end);
}

TEST(HostIsolation, RoutesAreForwardedToTheWorker) {
    HostProcess host(fixture_host());
    const int pid = pid_of(host.execute(isolated("answer")));
    const HttpResponse r = host.post_json("/fx/isolated", "hello");
    EXPECT_EQ(r.status, 201) << r.body;
    const json j = json::parse(r.body, nullptr, false);
    EXPECT_EQ(j.value("pid", 0), pid) << r.body;
    EXPECT_EQ(j.value("method", ""), "POST");
    EXPECT_EQ(j.value("body", ""), "hello");
}

TEST(HostIsolation, HostIsolateRunsAnyPluginInAWorker) {
    HostProcess host(fixture_host({"--set", "host.isolate=fx_good"}));
    const json obs = host.execute({{"action", "fixture_echo"}});
    EXPECT_EQ(obs["observation"], "fixture") << obs.dump();
    EXPECT_TRUE(contains(host.log(), "loaded plugin fx_good 1.0.0")) << host.log();
    EXPECT_TRUE(contains(host.log(), "in a process of its own")) << host.log();
}

TEST(HostIsolation, ABadSettingStopsTheStartWithTheKeyNamed) {
    for (const std::string bad : {"host.isolate=no_such_plugin", "host.isolate_timeout_s=soon"}) {
        TempDir wd("ahisolatebad");
        const std::string log = wd.path() + "/log";
        // As root with the user it is (no user made on the machine: uid 1000 may be anyone's here).
        const std::string cmd = "timeout 30 " + build_path("bin/actionhost") + " 0 --host 127.0.0.1 --username root --user-id 0 --working-dir " +
                                wd.path() + " --plugin-dir " + AH_FIXTURE_DIR + " --set " + bad + " --plugins fx_good > " + log + " 2>&1";
        const int rc = std::system(cmd.c_str());
        EXPECT_NE(rc, 0) << bad;
        std::ifstream in(log);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_TRUE(contains(text, bad.substr(0, bad.find('=')))) << text;
    }
}

TEST(HostIsolation, TheRestartBudgetEndsInAClearRefusal) {
    HostProcess host(fixture_host());
    // Five restarts within a minute are allowed; the crash after them leaves the plugin unavailable.
    std::string last;
    for (int i = 0; i < 8; ++i) last = host.execute(isolated("segv")).value("content", std::string());
    EXPECT_TRUE(contains(last, "unavailable until the host restarts")) << last;
    EXPECT_TRUE(contains(host.execute(isolated("answer")).value("content", std::string()), "unavailable until the host restarts"));
    EXPECT_EQ(host.get("/alive").status, 200);
}
