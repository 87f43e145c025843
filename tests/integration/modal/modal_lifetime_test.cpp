// Lifetimes on the modal backend against ModalApiFake, which ends sandboxes on timeout_secs and
// idle_timeout_secs as Modal documents them: the SandboxCreate definition carries the mapped fields, a
// sandbox ends by itself on time (kept or connected: the next request then says why) and when idle,
// `ahctl ps` shows the time left, careless values and what Modal cannot do (pause when idle, more than
// 24 hours) are refused before any call, and extending is refused with Modal's reason.
// Times of 2-5 s; every wait bounded.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <chrono>
#include <regex>
#include <thread>

#include "cloud_runtime.hpp"
#include "modal_api_fake.hpp"
#include "process_box.hpp"

using namespace cloud_fakes;
using actionhost::client::Config;
using actionhost::client::RuntimeDisconnected;
using actionhost::client::RuntimeError;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

class ModalLifetime : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_TRUE(fake.live_sandboxes().empty()) << ::testing::PrintToString(fake.live_sandboxes());
    }
    // A runtime of session `sid` (random when empty) sharing this test's state directory and port.
    CloudRuntimeOptions options(std::function<void(Config &)> keys, const std::string &sid = "") {
        const int port = port_;
        return {"modal",
                [port, keys](Config &c) {
                    c.set("modal.port", port);
                    c.set("modal.image", "registry.example/actionhost:test");
                    c.set("modal.unencrypted", true);  // the fake serves plain TCP tunnels
                    if (keys) keys(c);
                },
                sid, state.path()};
    }
    // The only sandbox's status ("running" or its result), once it is `want` (bounded).
    std::string wait_status(const std::string &want, double seconds) {
        const auto until = Clock::now() + std::chrono::duration<double>(seconds);
        for (;;) {
            auto all = fake.sandboxes();
            std::string seen = all.size() == 1 ? all.begin()->second : "<" + std::to_string(all.size()) + " sandboxes>";
            if (seen == want || Clock::now() >= until) return seen;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    ModalApiFake fake{"ak-life", "as-life"};
    actionhost::testing::TempDir state{"modal-life-state"};
    const int port_ = free_port();
    ScopedEnv id{"MODAL_TOKEN_ID", "ak-life"};
    ScopedEnv secret{"MODAL_TOKEN_SECRET", "as-life"};
    ScopedEnv server{"MODAL_SERVER_URL", fake.url()};  // in the environment: ahctl reads it too
    ScopedEnv environment{"MODAL_ENVIRONMENT", std::nullopt};
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

TEST_F(ModalLifetime, TheSandboxDefinitionCarriesTheMappedTimeouts) {
    {
        auto s = start_cloud_runtime(options([](Config &c) {
            c.set("sandbox.lifetime", 600);
            c.set("sandbox.idle_timeout", 300);
            c.set("sandbox.idle_action", "stop");
        }));
        EXPECT_EQ(fake.last_timeout_secs(), 600u);
        EXPECT_EQ(fake.last_idle_timeout_secs(), std::optional<uint32_t>(300));
        const json state = s->runtime->lifetime();
        EXPECT_EQ(state.value("lifetime_s", 0), 600) << state.dump();
        EXPECT_GT(state.value("time_left_s", 0.0), 590.0) << state.dump();
        EXPECT_EQ(state.value("idle_timeout_s", 0), 300) << state.dump();
        EXPECT_EQ(state.value("idle_action", ""), "stop") << state.dump();
        EXPECT_FALSE(state.value("paused", true));
        s->runtime->close();
    }
    // Neither key: OpenHands' one hour, no idle timeout; [modal] timeout still sets it.
    auto plain = start_cloud_runtime(options({}));
    EXPECT_EQ(fake.last_timeout_secs(), 3600u);
    EXPECT_EQ(fake.last_idle_timeout_secs(), std::nullopt);
    EXPECT_EQ(plain->runtime->lifetime().value("lifetime_s", 0), 3600);
    plain->runtime->close();
    auto older = start_cloud_runtime(options([](Config &c) { c.set("modal.timeout", 1800); }));
    EXPECT_EQ(fake.last_timeout_secs(), 1800u);
    older->runtime->close();
}

TEST_F(ModalLifetime, AKeptSandboxEndsByItselfOnTime) {
    const auto started = Clock::now();
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.lifetime", 3);
        c.set("sandbox.keep_runtime_alive", true);
    }));
    const std::string sid = s->runtime->session_id();
    s->runtime->close();  // kept: no client from here on
    EXPECT_EQ(wait_status("GENERIC_STATUS_TIMEOUT", 15), "GENERIC_STATUS_TIMEOUT");
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - started).count(), 2.9);
    auto later = make_cloud_runtime(options([](Config &c) { c.set("sandbox.keep_runtime_alive", true); }, sid));
    try {
        later->runtime->lifetime();
        ADD_FAILURE() << "a lifetime for a sandbox that ended";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("GENERIC_STATUS_TIMEOUT"), std::string::npos) << e.what();
    }
}

TEST_F(ModalLifetime, ARequestAfterTheEndSaysWhyTheSandboxIsGone) {
    auto s = start_cloud_runtime(options([](Config &c) { c.set("sandbox.lifetime", 5); }));
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo alive").value("content", ""), "alive");
    ASSERT_EQ(wait_status("GENERIC_STATUS_TIMEOUT", 15), "GENERIC_STATUS_TIMEOUT");
    try {
        runtimes_test::run(*s->runtime, "echo too late");
        ADD_FAILURE() << "answered after its timeout";
    } catch (const RuntimeDisconnected &e) {
        EXPECT_NE(std::string(e.what()).find("timeout"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("sandbox.lifetime"), std::string::npos) << e.what();
    }
    s->runtime->close();
}

TEST_F(ModalLifetime, AnIdleSandboxIsTerminated) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "stop");
        c.set("sandbox.keep_runtime_alive", true);
    }));
    // A command longer than the idle timeout holds its connection open: Modal counts that as activity.
    EXPECT_EQ(runtimes_test::run(*s->runtime, "sleep 3 && echo done", 30).value("content", ""), "done");
    EXPECT_EQ(wait_status("running", 0), "running");
    s->runtime->close();  // its connections close with it: no TCP connection over the tunnel is left
    EXPECT_EQ(wait_status("GENERIC_STATUS_IDLE_TIMEOUT", 15), "GENERIC_STATUS_IDLE_TIMEOUT");
}

TEST_F(ModalLifetime, CarelessValuesAndWhatModalCannotDoAreRefusedBeforeAnyCall) {
    auto refused = [&](const std::function<void(Config &)> &keys, const std::string &words) {
        auto s = make_cloud_runtime(options(keys));
        const std::string e = connect_error(*s);
        EXPECT_NE(e.find(words), std::string::npos) << e;
    };
    refused([](Config &c) { c.set("sandbox.lifetime", -5); }, "sandbox.lifetime must be a whole number");
    refused([](Config &c) { c.set("sandbox.idle_timeout", 5), c.set("sandbox.idle_action", "sleep"); }, "\"pause\" or \"stop\"");
    refused([](Config &c) { c.set("sandbox.idle_timeout", 5); }, "Modal cannot pause");  // idle_action defaults to pause
    refused([](Config &c) { c.set("sandbox.lifetime", 90000); }, "at most 24 hours");
    refused([](Config &c) { c.set("sandbox.lifetime", 60), c.set("modal.timeout", 120); }, "set one of them");
    refused([](Config &c) { c.set("modal.timeout", "soon"); }, "modal.timeout must be a whole number");
    EXPECT_TRUE(fake.calls().empty()) << ::testing::PrintToString(fake.calls());
    EXPECT_TRUE(fake.sandboxes().empty());
}

TEST_F(ModalLifetime, ExtendIsRefusedAndAhctlPsShowsTheTimeLeft) {
    auto s = start_cloud_runtime(options([](Config &c) {
        c.set("sandbox.lifetime", 600);
        c.set("sandbox.keep_runtime_alive", true);
    }));
    const std::string sid = s->runtime->session_id();
    try {
        s->runtime->extend(60);
        ADD_FAILURE() << "extended";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Modal cannot extend"), std::string::npos) << e.what();
    }
    s->runtime->close();
    auto ps = ahctl(state.path(), "ps");
    EXPECT_EQ(ps.exit_code, 0) << ps.output;
    EXPECT_TRUE(std::regex_search(ps.output, std::regex(" (9m5[0-9]s|10m0s) "))) << ps.output;
    auto extend = ahctl(state.path(), "extend " + sid + " 60");
    EXPECT_NE(extend.exit_code, 0) << extend.output;
    EXPECT_NE(extend.output.find("Modal cannot extend"), std::string::npos) << extend.output;
    auto later = make_cloud_runtime(options([](Config &c) { c.set("sandbox.keep_runtime_alive", true); }, sid));
    later->runtime->stop_kept_alive();
    EXPECT_EQ(wait_status("GENERIC_STATUS_TERMINATED", 5), "GENERIC_STATUS_TERMINATED");
}
