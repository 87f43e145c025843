// The real bash plugin run out of the host's process (`--set host.isolate=bash`, docs/plugin-guide.md,
// "Isolation"): commands, and the C-c key the host lets through beside a running action, still reach it.
#include <chrono>
#include <future>
#include <thread>

#include "bash_test_util.hpp"

using namespace bashtest;
using actionhost::testing::Http;
using Clock = std::chrono::steady_clock;

namespace {

HostOptions isolated_bash() {
    HostOptions o;
    o.args = {"--set", "host.isolate=bash"};
    return o;
}

json execute_apart(BashHost &h, const json &action, const std::string &session) {
    Http http("127.0.0.1", h.host().port(), 130);
    return http.post_json("/execute_action", json{{"action", action}, {"session", session}}.dump()).json();
}

}  // namespace

TEST(BashIsolated, EchoHiAnswersFromAWorker) {
    BashHost h(3, isolated_bash());
    EXPECT_EQ(content(h.must_complete("echo hi")), "hi");
    const json obs = h.must_complete("echo $PPID; cd /tmp");
    EXPECT_NE(content(obs), std::to_string(h.host().pid()));  // the shell's parent is the worker, not the host
    EXPECT_EQ(content(h.must_complete("pwd")), "/tmp");       // one persistent shell, as in the host
    EXPECT_TRUE(contains(h.host().log(), "loaded plugin bash")) << h.host().log();
    EXPECT_TRUE(contains(h.host().log(), "in a process of its own")) << h.host().log();
}

TEST(BashIsolated, CtrlCReachesABusySession) {
    BashHost h(3, isolated_bash());
    h.must_complete("true", "busy");
    json blocking = run_action("echo started; sleep 100");
    blocking["args"]["blocking"] = true;
    blocking["timeout"] = 60;
    auto running = std::async(std::launch::async, [&] { return execute_apart(h, blocking, "busy"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto sent = Clock::now();
    json key_action = run_action("C-c");
    key_action["args"]["is_input"] = true;
    key_action["timeout"] = 5;
    const json key = execute_apart(h, key_action, "busy");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 5.0);
    EXPECT_EQ(exit_code(key), 130) << key.dump();
    ASSERT_EQ(running.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    const json first = running.get();
    EXPECT_EQ(exit_code(first), 130) << first.dump();
    EXPECT_EQ(content(h.must_complete("echo ok", "busy")), "ok");
}
