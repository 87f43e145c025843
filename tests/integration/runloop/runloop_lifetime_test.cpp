// Lifetimes on the runloop backend against RunloopApiFake, which keeps keep_alive_time_seconds and
// after_idle as Runloop documents them: the create call carries the mapped launch_parameters, a kept
// devbox shuts down by itself on time or when idle, one its idle policy suspended is resumed by the next
// request (connected, or by the next client of the session), `ahctl ps` shows the time left, careless
// values are refused before anything is created, and extending is refused with Runloop's reason.
// Times of 2-4 s; every wait bounded.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <chrono>
#include <regex>
#include <thread>

#include "cloud_runtime.hpp"
#include "runloop_api_fake.hpp"

using namespace cloud_fakes;
using actionhost::client::Config;
using actionhost::client::RuntimeError;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const char *kKey = "rl-life-key";

class RunloopLifetime : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_TRUE(fake.live_devboxes().empty()) << ::testing::PrintToString(fake.live_devboxes());
    }
    // A runtime of session `sid` (random when empty) sharing this test's state directory and host port
    // (a later client of a session reaches the port its devbox opened).
    CloudRuntimeOptions options(std::function<void(Config &)> keys, const std::string &sid = "") {
        const int port = port_;
        return {"runloop",
                [port, keys](Config &c) {
                    c.set("runloop.port", port);
                    if (keys) keys(c);
                },
                sid, state.path()};
    }
    // The only devbox's status, once it is `want` (bounded); the last one seen otherwise.
    std::string wait_status(const std::string &want, double seconds) {
        const auto until = Clock::now() + std::chrono::duration<double>(seconds);
        for (;;) {
            auto all = fake.devboxes();
            std::string seen = all.size() == 1 ? all.begin()->second : "<" + std::to_string(all.size()) + " devboxes>";
            if (seen == want || Clock::now() >= until) return seen;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    RunloopApiFake fake{kKey};
    actionhost::testing::TempDir state{"rl-life-state"};
    const int port_ = free_port();
    ScopedEnv key{"RUNLOOP_API_KEY", kKey};
    ScopedEnv base{"RUNLOOP_BASE_URL", fake.url()};  // in the environment: ahctl reads it too
};

std::string connect_error(runtimes_test::StartedRuntime &s) {
    try {
        s.runtime->connect();
    } catch (const std::exception &e) {
        return e.what();
    }
    ADD_FAILURE() << "connect succeeded";
    return "";
}

}  // namespace

TEST_F(RunloopLifetime, TheCreateCallCarriesTheMappedLaunchParameters) {
    {
        auto s = start_cloud_runtime(options([](Config &c) { c.set("sandbox.lifetime", 600); }));
        const json launch = fake.last_create_body()["launch_parameters"];
        EXPECT_EQ(launch.value("keep_alive_time_seconds", 0), 600) << launch.dump();
        EXPECT_FALSE(launch.contains("after_idle")) << launch.dump();
        const json state = s->runtime->lifetime();
        EXPECT_EQ(state.value("lifetime_s", 0), 600) << state.dump();
        EXPECT_GT(state.value("time_left_s", 0.0), 590.0) << state.dump();
        EXPECT_LE(state.value("time_left_s", 0.0), 600.0) << state.dump();
        EXPECT_TRUE(state["idle_timeout_s"].is_null()) << state.dump();
        s->runtime->close();
    }
    for (const char *action : {"pause", "stop"}) {
        auto s = start_cloud_runtime(options([action](Config &c) {
            c.set("sandbox.idle_timeout", 300);
            c.set("sandbox.idle_action", action);
        }));
        const json launch = fake.last_create_body()["launch_parameters"];
        EXPECT_EQ(launch["after_idle"], (json{{"idle_time_seconds", 300}, {"on_idle", std::string(action) == "pause" ? "suspend" : "shutdown"}}))
            << launch.dump();
        EXPECT_FALSE(launch.contains("keep_alive_time_seconds")) << launch.dump();
        const json state = s->runtime->lifetime();
        EXPECT_EQ(state.value("idle_timeout_s", 0), 300) << state.dump();
        EXPECT_EQ(state.value("idle_action", ""), action) << state.dump();
        EXPECT_TRUE(state["lifetime_s"].is_null()) << state.dump();  // Runloop ignores keep_alive_time_seconds then
        EXPECT_FALSE(state.value("paused", true));
        s->runtime->close();
    }
    // Neither key: OpenHands' create, nothing added; the state says Runloop's default hour.
    auto s = start_cloud_runtime(options({}));
    const json launch = fake.last_create_body()["launch_parameters"];
    EXPECT_FALSE(launch.contains("keep_alive_time_seconds") || launch.contains("after_idle")) << launch.dump();
    EXPECT_EQ(s->runtime->lifetime().value("lifetime_s", 0), 3600);
    s->runtime->close();
}

TEST_F(RunloopLifetime, AKeptDevboxShutsDownByItselfOnTime) {
    const auto started = Clock::now();
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.lifetime", 4);
        c.set("sandbox.keep_runtime_alive", true);
    }));
    const std::string sid = s->runtime->session_id();
    s->runtime->close();  // kept: no client from here on
    EXPECT_EQ(wait_status("shutdown", 15), "shutdown");
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - started).count(), 3.9);
    auto later = make_cloud_runtime(options([](Config &c) { c.set("sandbox.keep_runtime_alive", true); }, sid));
    try {
        later->runtime->lifetime();
        ADD_FAILURE() << "a lifetime for a devbox that shut down";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("keep_alive_timeout"), std::string::npos) << e.what();
    }
}

TEST_F(RunloopLifetime, AnIdleDevboxIsSuspendedAndTheNextRequestResumesIt) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "pause");
    }));
    EXPECT_EQ(runtimes_test::exit_code(runtimes_test::run(*s->runtime, "cd /tmp && export MARK=kept")), 0);
    ASSERT_EQ(wait_status("suspended", 15), "suspended");
    EXPECT_TRUE(s->runtime->lifetime().value("paused", false));
    EXPECT_EQ(wait_status("suspended", 0), "suspended");  // asking Runloop does not resume it
    // The next request: the tunnel refuses it, the backend resumes the devbox and sends it again.
    const json obs = runtimes_test::run(*s->runtime, "echo $MARK $(pwd)");
    EXPECT_EQ(obs.value("content", ""), "kept /tmp") << obs.dump();  // the same shell: suspended, not restarted
    EXPECT_EQ(wait_status("running", 0), "running");
    s->runtime->close();
}

TEST_F(RunloopLifetime, TheNextClientOfASessionResumesItsSuspendedDevbox) {
    auto keep = [](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "pause");
        c.set("sandbox.keep_runtime_alive", true);
    };
    auto first = start_cloud_runtime(options(keep));
    const std::string sid = first->runtime->session_id();
    first->runtime->close();
    ASSERT_EQ(wait_status("suspended", 15), "suspended");
    auto ps = ahctl(state.path(), "ps");
    EXPECT_NE(ps.output.find("paused"), std::string::npos) << ps.output;
    auto second = start_cloud_runtime(options([](Config &c) { c.set("sandbox.keep_runtime_alive", false); }, sid));
    EXPECT_EQ(fake.devboxes().size(), 1u);  // resumed, none created
    EXPECT_EQ(runtimes_test::run(*second->runtime, "echo again").value("content", ""), "again");
    second->runtime->close();
    EXPECT_EQ(wait_status("shutdown", 5), "shutdown");
}

TEST_F(RunloopLifetime, IdleStopShutsTheDevboxDown) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "stop");
        c.set("sandbox.keep_runtime_alive", true);
    }));
    s->runtime->close();
    EXPECT_EQ(wait_status("shutdown", 15), "shutdown");
}

TEST_F(RunloopLifetime, CarelessValuesAreRefusedBeforeAnythingIsCreated) {
    auto refused = [&](const std::function<void(Config &)> &keys, const std::string &words) {
        auto s = make_cloud_runtime(options(keys));
        const std::string e = connect_error(*s);
        EXPECT_NE(e.find(words), std::string::npos) << e;
    };
    refused([](Config &c) { c.set("sandbox.lifetime", -5); }, "sandbox.lifetime must be a whole number");
    refused([](Config &c) { c.set("sandbox.lifetime", 999'999'999'999LL); }, "at most");
    refused([](Config &c) { c.set("sandbox.idle_timeout", 5), c.set("sandbox.idle_action", "sleep"); }, "\"pause\" or \"stop\"");
    refused([](Config &c) { c.set("sandbox.idle_action", "stop"); }, "idle_timeout is not");
    refused([](Config &c) { c.set("sandbox.lifetime", 60), c.set("sandbox.idle_timeout", 30); }, "not both");
    EXPECT_TRUE(fake.requests().empty()) << ::testing::PrintToString(fake.requests());
    EXPECT_TRUE(fake.devboxes().empty());
}

TEST_F(RunloopLifetime, ExtendIsRefusedAndAhctlPsShowsTheTimeLeft) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.lifetime", 600);
        c.set("sandbox.keep_runtime_alive", true);
    }));
    const std::string sid = s->runtime->session_id();
    try {
        s->runtime->extend(60);
        ADD_FAILURE() << "extended";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Runloop cannot extend"), std::string::npos) << e.what();
    }
    s->runtime->close();
    auto ps = ahctl(state.path(), "ps");
    EXPECT_EQ(ps.exit_code, 0) << ps.output;
    EXPECT_NE(ps.output.find("LEFT"), std::string::npos) << ps.output;
    EXPECT_TRUE(std::regex_search(ps.output, std::regex(" (9m5[0-9]s|10m0s) "))) << ps.output;
    auto extend = ahctl(state.path(), "extend " + sid + " 60");
    EXPECT_NE(extend.exit_code, 0) << extend.output;
    EXPECT_NE(extend.output.find("Runloop cannot extend"), std::string::npos) << extend.output;
    auto later = make_cloud_runtime(options([](Config &c) { c.set("sandbox.keep_runtime_alive", true); }, sid));
    later->runtime->stop_kept_alive();
    EXPECT_EQ(wait_status("shutdown", 5), "shutdown");
}
