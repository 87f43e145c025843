// Lifetimes on the daytona backend against DaytonaApiFake, which keeps autoStopInterval and
// autoDeleteInterval as Daytona documents them, in minutes — counted here in 2-second "minutes"
// (the fake's test-only minute_seconds), since a test cannot wait whole minutes. The create call carries
// the intervals, a sandbox idle that long is stopped (idle_action "pause") or deleted ("stop") by
// itself, the next request starts a stopped one again, `ahctl ps` shows it paused, careless values are
// refused before anything is created, and extending is refused: Daytona keeps no lifetime.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <chrono>
#include <thread>

#include "cloud_runtime.hpp"
#include "daytona_api_fake.hpp"

using namespace cloud_fakes;
using actionhost::client::Config;
using actionhost::client::RuntimeError;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const char *kKey = "dtn-life-key";
constexpr double kMinuteSeconds = 2;  // the fake's minute, for these tests

class DaytonaLifetime : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_TRUE(fake.live_sandboxes().empty()) << ::testing::PrintToString(fake.live_sandboxes());
    }
    // A runtime of session `sid` (random when empty) sharing this test's state directory and port.
    CloudRuntimeOptions options(std::function<void(Config &)> keys, const std::string &sid = "") {
        const int port = port_;
        return {"daytona",
                [port, keys](Config &c) {
                    c.set("daytona.port", port);
                    if (keys) keys(c);
                },
                sid, state.path()};
    }
    // The only sandbox's state, once it is `want` (bounded); the last one seen otherwise.
    std::string wait_state(const std::string &want, double seconds) {
        const auto until = Clock::now() + std::chrono::duration<double>(seconds);
        for (;;) {
            auto all = fake.sandboxes();
            std::string seen = all.size() == 1 ? all.begin()->second : "<" + std::to_string(all.size()) + " sandboxes>";
            if (seen == want || Clock::now() >= until) return seen;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    DaytonaApiFake fake{kKey, kMinuteSeconds};
    actionhost::testing::TempDir state{"dtn-life-state"};
    const int port_ = free_port();
    ScopedEnv key{"DAYTONA_API_KEY", kKey};
    ScopedEnv url{"DAYTONA_API_URL", fake.url()};  // in the environment: ahctl reads it too
    ScopedEnv target{"DAYTONA_TARGET", "us"};
    ScopedEnv old_url{"DAYTONA_SERVER_URL", std::nullopt};
    ScopedEnv no_stop{"DAYTONA_DISABLE_AUTO_STOP", std::nullopt};
    ScopedEnv delete_on_close{"DAYTONA_DELETE_ON_CLOSE", "true"};  // closed runtimes leave nothing
};

std::string start_error(const CloudRuntimeOptions &o) {
    try {
        start_cloud_runtime(o);
    } catch (const std::exception &e) {
        return e.what();
    }
    ADD_FAILURE() << "started";
    return "";
}

}  // namespace

TEST_F(DaytonaLifetime, TheCreateCallCarriesTheIntervalsInMinutes) {
    for (const char *action : {"pause", "stop"}) {
        auto s = start_cloud_runtime(options([action](Config &c) {
            c.set("sandbox.idle_timeout", 600);
            c.set("sandbox.idle_action", action);
        }));
        const json body = fake.last_create_body();
        EXPECT_EQ(body.value("autoStopInterval", -1), 10) << body.dump();
        if (std::string(action) == "stop") EXPECT_EQ(body.value("autoDeleteInterval", -2), 0) << body.dump();
        else EXPECT_FALSE(body.contains("autoDeleteInterval")) << body.dump();
        const json state = s->runtime->lifetime();
        EXPECT_EQ(state.value("idle_timeout_s", 0), 600) << state.dump();
        EXPECT_EQ(state.value("idle_action", ""), action) << state.dump();
        EXPECT_TRUE(state["lifetime_s"].is_null()) << state.dump();
        EXPECT_TRUE(state["time_left_s"].is_null()) << state.dump();
        s->runtime->close();
    }
    // Neither key: OpenHands' 60 minutes, as before.
    auto s = start_cloud_runtime(options({}));
    EXPECT_EQ(fake.last_create_body().value("autoStopInterval", -1), 60);
    EXPECT_EQ(s->runtime->lifetime().value("idle_timeout_s", 0), 3600);
    s->runtime->close();
}

TEST_F(DaytonaLifetime, AnIdleSandboxIsStoppedAndTheNextRequestStartsItAgain) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.idle_timeout", 60);  // one (fake) minute
        c.set("sandbox.idle_action", "pause");
    }));
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo before > stamp && cat stamp").value("content", ""), "before");
    ASSERT_EQ(wait_state("stopped", 15), "stopped");
    EXPECT_TRUE(s->runtime->lifetime().value("paused", false));
    EXPECT_EQ(wait_state("stopped", 0), "stopped");  // asking Daytona does not start it
    // The next request: the preview URL refuses it, the backend starts the sandbox and its host again.
    const json obs = runtimes_test::run(*s->runtime, "cat stamp");
    EXPECT_EQ(obs.value("content", ""), "before") << obs.dump();  // the files were kept
    EXPECT_EQ(wait_state("started", 0), "started");
    s->runtime->close();
}

TEST_F(DaytonaLifetime, IdleStopDeletesTheSandbox) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.idle_timeout", 60);
        c.set("sandbox.idle_action", "stop");
        c.set("sandbox.keep_runtime_alive", true);
        c.set("sandbox.pause_closed_runtimes", false);
    }));
    s->runtime->close();  // kept, started: from here only Daytona acts
    EXPECT_EQ(wait_state("destroyed", 15), "destroyed");
}

TEST_F(DaytonaLifetime, CarelessValuesAreRefusedBeforeAnythingIsCreated) {
    EXPECT_NE(start_error(options([](Config &c) { c.set("sandbox.idle_timeout", 90); })).find("whole minutes"), std::string::npos);
    EXPECT_NE(start_error(options([](Config &c) { c.set("sandbox.idle_timeout", -60); })).find("must be a whole number"), std::string::npos);
    EXPECT_NE(start_error(options([](Config &c) { c.set("sandbox.idle_action", "stop"); })).find("idle_timeout is not"), std::string::npos);
    // Daytona keeps no lifetime: the key is refused at create, naming the runtimes that honour it.
    const std::string lifetime = start_error(options([](Config &c) { c.set("sandbox.lifetime", 600); }));
    EXPECT_NE(lifetime.find("does not honour sandbox.lifetime"), std::string::npos) << lifetime;
    EXPECT_NE(lifetime.find("modal"), std::string::npos) << lifetime;
    {
        ScopedEnv off("DAYTONA_DISABLE_AUTO_STOP", "true");
        EXPECT_NE(start_error(options([](Config &c) { c.set("sandbox.idle_timeout", 60); })).find("DAYTONA_DISABLE_AUTO_STOP"),
                  std::string::npos);
    }
    EXPECT_TRUE(fake.requests().empty()) << ::testing::PrintToString(fake.requests());
}

TEST_F(DaytonaLifetime, ExtendIsRefusedAndAhctlPsShowsAStoppedSandboxPaused) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.idle_timeout", 120);
        c.set("sandbox.keep_runtime_alive", true);
    }));
    const std::string sid = s->runtime->session_id();
    try {
        s->runtime->extend(60);
        ADD_FAILURE() << "extended";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Daytona cannot extend"), std::string::npos) << e.what();
    }
    s->runtime->close();  // kept and stopped (pause_closed_runtimes)
    ASSERT_EQ(wait_state("stopped", 5), "stopped");
    auto ps = ahctl(state.path(), "ps");
    EXPECT_EQ(ps.exit_code, 0) << ps.output;
    EXPECT_NE(ps.output.find(" paused "), std::string::npos) << ps.output;
    auto extend = ahctl(state.path(), "extend " + sid + " 60");
    EXPECT_NE(extend.exit_code, 0) << extend.output;
    EXPECT_NE(extend.output.find("Daytona cannot extend"), std::string::npos) << extend.output;
    auto later = make_cloud_runtime(options([](Config &c) { c.set("sandbox.keep_runtime_alive", true); }, sid));
    later->runtime->stop_kept_alive();  // attaches (starting it) and deletes it
    EXPECT_EQ(wait_state("destroyed", 5), "destroyed");
}
