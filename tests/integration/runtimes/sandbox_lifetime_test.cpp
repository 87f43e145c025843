// Lifetimes of the `sandbox` runtime (sandbox.lifetime, idle_timeout, idle_action; docs/runtimes.md,
// "Lifetimes"): a kept-alive sandbox whose client has exited ends by itself on time and leaves nothing
// (process, run directory, cgroups, records); extending moves the end; an idle one is frozen and the
// next request — a plain wire client, no resume call — is answered and thaws it; idle "stop" ends it.
// Careless input (negative, zero, huge, not a number, an unknown session) is refused with a sentence,
// backends that keep no lifetime refuse the keys, and the agent, root inside, cannot keep its sandbox alive.
// Lifetimes of 2-4 s; every wait bounded.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/client/wire_client.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::client::Runtime;
using actionhost::client::RuntimeError;
using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::unique_ptr<StartedRuntime> kept_sandbox(const std::function<void(Config &)> &keys) {
    return start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.keep_runtime_alive", true);
        keys(c);
    });
}

// What a sandbox is on the machine, read while it runs.
struct Traces {
    std::string run_dir, cgroup, client_record, backend_record;
    pid_t supervisor = -1;
};

Traces traces_of(StartedRuntime &s) {
    Traces t;
    const std::string url = s.runtime->url();  // unix://<run dir>/api.sock
    t.run_dir = url.substr(7, url.rfind('/') - 7);
    t.cgroup = "ah-" + fs::path(t.run_dir).filename().string().substr(std::string("ah-sandbox-").size());
    t.client_record = s.state->path() + "/" + s.runtime->session_id() + ".json";
    t.backend_record = s.state->path() + "/sandbox-" + s.runtime->session_id() + ".backend.json";
    std::ifstream in(t.backend_record);
    t.supervisor = json::parse(in, nullptr, false).value("pid", -1);
    return t;
}

std::vector<std::string> cgroup_dirs(const std::string &name) {
    std::vector<std::string> out;
    for (const char *c : {"memory", "pids", "cpu", "freezer"})
        if (fs::exists(std::string("/sys/fs/cgroup/") + c + "/actionhost/" + name)) out.push_back(c);
    if (fs::exists("/sys/fs/cgroup/unified/actionhost/" + name) || fs::exists("/sys/fs/cgroup/actionhost/" + name)) out.push_back("v2");
    return out;
}

// The supervisor is this test process's child (the client library started it): reaped here once it
// exits, as init reaps it when the client that started it has exited.
bool process_exists(pid_t pid) {
    if (pid <= 0) return false;
    ::waitpid(pid, nullptr, WNOHANG);
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

// Waits up to `limit` for the supervisor to be gone; the seconds it took, or -1.
double wait_gone(const Traces &t, std::chrono::seconds limit) {
    const auto t0 = Clock::now();
    while (Clock::now() - t0 < limit) {
        if (!process_exists(t.supervisor) && !fs::exists(t.run_dir)) return std::chrono::duration<double>(Clock::now() - t0).count();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
}

void expect_nothing_left(const Traces &t) {
    EXPECT_FALSE(process_exists(t.supervisor)) << t.supervisor;
    EXPECT_FALSE(fs::exists(t.run_dir)) << t.run_dir;
    EXPECT_TRUE(cgroup_dirs(t.cgroup).empty()) << t.cgroup;
    EXPECT_FALSE(fs::exists(t.client_record)) << t.client_record;
    EXPECT_FALSE(fs::exists(t.backend_record)) << t.backend_record;
}

std::string freezer_state(const Traces &t) {
    std::ifstream in("/sys/fs/cgroup/freezer/actionhost/" + t.cgroup + "/freezer.state");
    std::string state;
    in >> state;
    return state;
}

// The session's runtime as a later client process makes it: not connected.
std::unique_ptr<Runtime> later_client(StartedRuntime &s) {
    auto options = test_runtime_options("sandbox", s.workspace->path(), s.state->path());
    options.session_id = s.runtime->session_id();
    options.config.set("sandbox.keep_runtime_alive", true);
    return Runtime::create(options);
}

}  // namespace

TEST(SandboxLifetime, AKeptAliveSandboxEndsByItselfOnTimeAndLeavesNothing) {
    const auto started = Clock::now();
    auto s = kept_sandbox([](Config &c) { c.set("sandbox.lifetime", 4); });
    const Traces t = traces_of(*s);
    ASSERT_GT(t.supervisor, 0);
    const json state = s->runtime->lifetime();
    EXPECT_EQ(state.value("lifetime_s", 0), 4);
    EXPECT_GT(state.value("time_left_s", 0.0), 0.5);
    EXPECT_TRUE(state["idle_timeout_s"].is_null());
    s->runtime->close();  // kept: from here no client runs
    ASSERT_TRUE(process_exists(t.supervisor));
    const double took = wait_gone(t, std::chrono::seconds(15));
    ASSERT_GE(took, 0) << "still there 15 s later";
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - started).count(), 3.9);
    expect_nothing_left(t);
    EXPECT_THROW(later_client(*s)->lifetime(), RuntimeError);  // no running sandbox for the session
}

TEST(SandboxLifetime, ExtendingMovesTheEndAndCarelessValuesAreRefused) {
    auto s = kept_sandbox([](Config &c) { c.set("sandbox.lifetime", 3); });
    const Traces t = traces_of(*s);
    s->runtime->close();
    auto later = later_client(*s);
    for (long long bad : {0LL, -5LL, 1'000'000'000'000LL}) EXPECT_THROW(later->extend(bad), std::invalid_argument) << bad;
    const json after = later->extend(4);
    EXPECT_GT(after.value("time_left_s", 0.0), 4.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(4500));  // past the first end
    EXPECT_TRUE(process_exists(t.supervisor));
    EXPECT_TRUE(fs::exists(t.run_dir));
    ASSERT_GE(wait_gone(t, std::chrono::seconds(10)), 0);
    expect_nothing_left(t);
}

TEST(SandboxLifetime, ASandboxWithoutALifetimeCannotBeExtended) {
    auto s = start_runtime("sandbox");
    const json state = s->runtime->lifetime();
    EXPECT_TRUE(state["time_left_s"].is_null());
    try {
        s->runtime->extend(60);
        FAIL() << "extended";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("no lifetime"), std::string::npos) << e.what();
    }
}

TEST(SandboxLifetime, AnIdleSandboxIsPausedAndTheNextRequestResumesIt) {
    if (geteuid() != 0) GTEST_SKIP() << "the cgroup freezer is a root caller's";
    auto s = kept_sandbox([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "pause");
    });
    const Traces t = traces_of(*s);
    const std::string url = s->runtime->url();
    const auto record = actionhost::client::StateStore(s->state->path()).get(s->runtime->session_id());
    ASSERT_TRUE(record);
    s->runtime->close();  // its connection goes with it
    bool frozen = false;
    for (int i = 0; i < 100 && !frozen; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(100))) frozen = freezer_state(t) == "FROZEN";
    ASSERT_TRUE(frozen) << freezer_state(t);
    EXPECT_TRUE(later_client(*s)->lifetime().value("paused", false));  // asking the supervisor leaves it paused
    EXPECT_EQ(freezer_state(t), "FROZEN");
    // A plain wire client, as any program of OpenHands' would send it: no resume call, no retry.
    const auto t0 = Clock::now();
    actionhost::client::WireClient wire(url, record->value("session_api_key", ""));
    const json obs = wire.execute({{"action", "run"}, {"args", {{"command", "echo resumed"}, {"blocking", true}}}});
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
    EXPECT_NE(obs.value("content", "").find("resumed"), std::string::npos) << obs.dump();
    EXPECT_EQ(freezer_state(t), "THAWED");
    later_client(*s)->stop_kept_alive();
    EXPECT_GE(wait_gone(t, std::chrono::seconds(10)), 0);
}

TEST(SandboxLifetime, IdleStopEndsTheSandboxAndLeavesNothing) {
    auto s = kept_sandbox([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "stop");
    });
    const Traces t = traces_of(*s);
    s->runtime->close();
    ASSERT_GE(wait_gone(t, std::chrono::seconds(15)), 0);
    expect_nothing_left(t);
}

// Root inside, busy and ignoring SIGTERM, the agent looks for the control socket (it is not there)
// and cannot keep its sandbox past its end.
TEST(SandboxLifetime, TheAgentCannotKeepItsSandboxAlive) {
    auto s = kept_sandbox([](Config &c) { c.set("sandbox.lifetime", 4); });
    const Traces t = traces_of(*s);
    const json obs = run(*s->runtime, "ls " + t.run_dir + "/control.sock 2>&1; find / -xdev -name control.sock 2>/dev/null | wc -l;"
                                      " (trap '' TERM HUP; while :; do :; done) >/dev/null 2>&1 & echo started");
    EXPECT_NE(obs.value("content", "").find("No such file"), std::string::npos) << obs.dump();
    EXPECT_NE(obs.value("content", "").find("\n0\n"), std::string::npos) << obs.dump();
    s->runtime->close();
    ASSERT_GE(wait_gone(t, std::chrono::seconds(15)), 0);
    expect_nothing_left(t);
}

TEST(SandboxLifetime, BadValuesAndOtherBackendsAreRefusedWithASentence) {
    auto refused = [](const std::string &backend, const std::function<void(Config &)> &keys, const std::string &words) {
        try {
            start_runtime(backend, keys);
            ADD_FAILURE() << backend << ": started";
        } catch (const std::exception &e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    refused("sandbox", [](Config &c) { c.set("sandbox.lifetime", -5); }, "sandbox.lifetime must be a whole number");
    refused("sandbox", [](Config &c) { c.set("sandbox.lifetime", 999'999'999'999LL); }, "at most");
    refused("sandbox", [](Config &c) { c.set("sandbox.idle_timeout", 5), c.set("sandbox.idle_action", "sleep"); }, "\"pause\" or \"stop\"");
    refused("sandbox", [](Config &c) { c.set("sandbox.idle_action", "stop"); }, "idle_timeout is not");
    refused("sandbox", [](Config &c) { c.set("sandbox.idle_timeout", 5), c.set("sandbox.network", "host"); }, "own network");
    // local, docker and some cloud backends keep lifetimes too (local_lifetime_test.cpp, docker_lifetime_test.cpp,
    // the cloud backends' *_lifetime_test.cpp); these do not, refused by their manifests before any start.
    for (const char *backend : {"remote", "daytona"})
        refused(backend, [](Config &c) { c.set("sandbox.lifetime", 60); }, "lifetime");
    refused("kubernetes", [](Config &c) { c.set("sandbox.idle_timeout", 60); }, "idle_timeout");
}

TEST(SandboxLifetime, AhctlExtendAndPsShowTheTimeLeft) {
    auto s = kept_sandbox([](Config &c) { c.set("sandbox.lifetime", 600); });
    const Traces t = traces_of(*s);
    const std::string sid = s->runtime->session_id();
    s->runtime->close();
    auto ahctl = [&](const std::string &args) {
        return actionhost::testing::run_process({"/bin/bash", "-c", "'" + actionhost::testing::build_path("bin/ahctl") + "' --state-dir '" +
                                                                    s->state->path() + "' " + args + " 2>&1"}, 60);
    };
    auto ok = ahctl("extend " + sid + " 3600");
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_NE(ok.output.find(" left (until "), std::string::npos) << ok.output;
    // 600 + 3600 s, a moment gone: "70m", or "69m..." once a second has passed (a loaded machine).
    const auto about_70m = [](const std::string &text, const std::string &before) {
        return text.find(before + "70m") != std::string::npos || text.find(before + "69m") != std::string::npos;
    };
    EXPECT_TRUE(about_70m(ok.output, sid + ": ")) << ok.output;
    auto ps = ahctl("ps");
    EXPECT_NE(ps.output.find("LEFT"), std::string::npos) << ps.output;
    EXPECT_NE(ps.output.find(sid), std::string::npos) << ps.output;
    // The figure itself, from --json: the extension less the time since (seconds, however loaded the machine).
    const auto listed = nlohmann::json::parse(ahctl("ps --json").output, nullptr, false);
    ASSERT_TRUE(listed.is_array() && listed.size() == 1) << listed;
    const double left = listed[0].value("time_left_s", 0.0), age = listed[0].value("age_s", 0.0);
    EXPECT_GT(left, 4200 - age - 60) << listed;
    EXPECT_LE(left, 4200 - age + 5) << listed;
    EXPECT_EQ(ahctl("extend " + sid + " soon").exit_code, 2);
    EXPECT_EQ(ahctl("extend " + sid + " 0").exit_code, 2);
    EXPECT_EQ(ahctl("extend " + sid).exit_code, 2);
    auto unknown = ahctl("extend no-such-session 60");
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.output.find("no kept-alive runtime"), std::string::npos) << unknown.output;
    later_client(*s)->stop_kept_alive();
    EXPECT_GE(wait_gone(t, std::chrono::seconds(10)), 0);
}
