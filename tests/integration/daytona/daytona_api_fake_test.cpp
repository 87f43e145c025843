// The daytona backend against DaytonaApiFake (Daytona REST API under /api; sandboxes really run on
// this machine): create → started → host started through a toolbox session → preview URL → actions →
// stop/start → delete, the shared conformance set, attach by label, and the error cases. Every test
// ends with no sandbox left.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cloud_runtime.hpp"
#include "daytona_api_fake.hpp"

using namespace cloud_fakes;
using actionhost::client::Config;
using actionhost::client::RuntimeError;
using nlohmann::json;

namespace {

const char *kKey = "dtn-test-key";

class DaytonaApiFakeTest : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_TRUE(fake.live_sandboxes().empty()) << ::testing::PrintToString(fake.live_sandboxes());
    }
    CloudRuntimeOptions options(std::function<void(Config &)> more = {}) {
        int port = free_port();
        return {"daytona", [port, more](Config &c) {
                    c.set("daytona.port", port);
                    if (more) more(c);
                }};
    }
    DaytonaApiFake fake{kKey};
    ScopedEnv key{"DAYTONA_API_KEY", kKey};
    ScopedEnv url{"DAYTONA_API_URL", fake.url()};
    ScopedEnv target{"DAYTONA_TARGET", "us"};
    ScopedEnv old_url{"DAYTONA_SERVER_URL", std::nullopt};
    // Tests leave nothing behind (TearDown); closing without deleting has its own test.
    ScopedEnv delete_on_close{"DAYTONA_DELETE_ON_CLOSE", "true"};
};

std::string connect_error(runtimes_test::StartedRuntime &s) {
    try {
        s.runtime->connect();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    ADD_FAILURE() << "connect succeeded";
    return "";
}

std::string only_state(const DaytonaApiFake &fake) {
    auto all = fake.sandboxes();
    return all.size() == 1 ? all.begin()->second : "<" + std::to_string(all.size()) + " sandboxes>";
}

}  // namespace

TEST_F(DaytonaApiFakeTest, ProvisionRunStopStartDelete) {
    auto s = start_cloud_runtime(options());
    json body = fake.last_create_body();
    EXPECT_EQ(body["labels"].value("OpenHands_SID", ""), s->runtime->session_id());
    EXPECT_EQ(body.value("public", false), true);
    EXPECT_EQ(body.value("target", ""), "us");
    EXPECT_EQ(body.value("autoStopInterval", -1), 60);
    EXPECT_TRUE(body["env"].contains("SESSION_API_KEY"));
    EXPECT_EQ(only_state(fake), "started");

    runtimes_test::check_bash(*s);
    EXPECT_EQ(runtimes_test::exit_code(runtimes_test::run(*s->runtime, "echo persisted > kept.txt")), 0);
    s->runtime->pause();
    EXPECT_EQ(only_state(fake), "stopped");
    s->runtime->resume();
    EXPECT_EQ(only_state(fake), "started");
    // A stopped sandbox keeps its files; the host was started again.
    EXPECT_EQ(runtimes_test::run(*s->runtime, "cat " + s->workspace_inside + "/kept.txt").value("content", ""), "persisted");
    s->runtime->close();  // DAYTONA_DELETE_ON_CLOSE=true (the fixture's)
    EXPECT_TRUE(fake.sandboxes().empty() || only_state(fake) == "destroying" || only_state(fake) == "destroyed");
}

static std::size_t creates(const DaytonaApiFake &fake) {
    auto r = fake.requests();
    return static_cast<std::size_t>(std::count(r.begin(), r.end(), std::string("POST /api/sandbox")));
}

// As OpenHands: without DAYTONA_DELETE_ON_CLOSE, close stops the sandbox and its workspace stays for the
// session's next start, which finds it by label.
TEST_F(DaytonaApiFakeTest, CloseStopsTheSandboxUnlessAskedToDelete) {
    actionhost::testing::TempDir state("dt-state");
    const auto tweak = options().tweak;  // one port for both starts
    {
        ScopedEnv keep("DAYTONA_DELETE_ON_CLOSE", std::nullopt);
        auto s = start_cloud_runtime({"daytona", tweak, "dtsession2", state.path()});
        EXPECT_EQ(runtimes_test::exit_code(runtimes_test::run(*s->runtime, "echo persisted > kept.txt")), 0);
        s->runtime->close();
        EXPECT_EQ(only_state(fake), "stopped");
    }
    // The next start of the session finds the stopped sandbox by label and starts it: none is created
    // (the fake keeps no files across a stop; Daytona's stopped sandboxes keep their disk).
    const std::size_t creates_before = creates(fake);
    EXPECT_EQ(creates_before, 1u);
    auto again = start_cloud_runtime({"daytona", tweak, "dtsession2", state.path()});
    EXPECT_EQ(fake.sandboxes().size(), 1u);
    EXPECT_EQ(creates(fake), creates_before);
    EXPECT_EQ(only_state(fake), "started");
    EXPECT_EQ(runtimes_test::run(*again->runtime, "echo again").value("content", ""), "again");
    again->runtime->close();  // deleted now (the fixture's DAYTONA_DELETE_ON_CLOSE)
    EXPECT_TRUE(fake.sandboxes().empty() || only_state(fake) == "destroying" || only_state(fake) == "destroyed");
}

TEST_F(DaytonaApiFakeTest, ConformanceSet) {
    auto s = start_cloud_runtime(options());
    runtimes_test::check_read_write(*s);
    runtimes_test::check_edit(*s);
    runtimes_test::check_upload_download(*s);
    s->runtime->close();
}

TEST_F(DaytonaApiFakeTest, KeptAliveSandboxIsStoppedThenStartedAgainByLabel) {
    actionhost::testing::TempDir state("dt-state");
    int port = free_port();
    auto tweak = [port](bool keep) {
        return [port, keep](Config &c) {
            c.set("daytona.port", port);
            c.set("sandbox.keep_runtime_alive", keep);
        };
    };
    auto first = start_cloud_runtime({"daytona", tweak(true), "dtsession1", state.path()});
    first->runtime->close();
    first.reset();
    EXPECT_EQ(only_state(fake), "stopped");  // pause_closed_runtimes (default true)

    auto second = start_cloud_runtime({"daytona", tweak(false), "dtsession1", state.path()});
    EXPECT_EQ(fake.sandboxes().size(), 1u);  // attached and started, none created
    EXPECT_EQ(runtimes_test::run(*second->runtime, "echo again").value("content", ""), "again");
    second->runtime->close();
}

TEST_F(DaytonaApiFakeTest, MissingApiKeyIsAClearErrorAndCreatesNothing) {
    ScopedEnv none("DAYTONA_API_KEY", std::nullopt);
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("DAYTONA_API_KEY is not set"), std::string::npos) << e;
    EXPECT_TRUE(fake.requests().empty());
}

TEST_F(DaytonaApiFakeTest, WrongApiKeyShowsTheApiMessage) {
    ScopedEnv wrong("DAYTONA_API_KEY", "nope");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("401"), std::string::npos) << e;
    EXPECT_NE(e.find("Invalid credentials"), std::string::npos) << e;
}

TEST_F(DaytonaApiFakeTest, BadApiUrlIsRefused) {
    ScopedEnv bad("DAYTONA_API_URL", "app.daytona.io/api");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("DAYTONA_API_URL"), std::string::npos) << e;
    EXPECT_TRUE(fake.requests().empty());
}

TEST_F(DaytonaApiFakeTest, UnreachableApiIsAClearError) {
    int closed = free_port();
    ScopedEnv gone("DAYTONA_API_URL", "http://127.0.0.1:" + std::to_string(closed) + "/api");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("cannot reach the Daytona API"), std::string::npos) << e;
}

TEST_F(DaytonaApiFakeTest, SandboxBuildFailureIsReportedAndDeleted) {
    fake.fail_next_sandbox("build_failed", "snapshot nope:latest not found");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("snapshot nope:latest not found"), std::string::npos) << e;
}

TEST_F(DaytonaApiFakeTest, ProviderErrorOnCreateIsReported) {
    fake.fail_next("POST /api/sandbox", 403);
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("403"), std::string::npos) << e;
    EXPECT_TRUE(fake.sandboxes().empty());
}

TEST_F(DaytonaApiFakeTest, HostThatExitsIsReportedWithItsOutputAndDeleted) {
    actionhost::testing::TempDir image("dt-image");
    std::filesystem::create_directories(image / "bin");
    std::ofstream(image / "bin/actionhost") << "#!/bin/sh\necho cannot start: no plugins here\nexit 3\n";
    std::filesystem::permissions(image / "bin/actionhost", std::filesystem::perms::owner_all);
    auto s = make_cloud_runtime(options([&](Config &c) { c.set("daytona.install_dir", image.path()); }));
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("exited with code 3"), std::string::npos) << e;
    EXPECT_NE(e.find("cannot start: no plugins here"), std::string::npos) << e;
}

TEST_F(DaytonaApiFakeTest, HostThatNeverAnswersTimesOut) {
    actionhost::testing::TempDir image("dt-image");
    std::filesystem::create_directories(image / "bin");
    std::ofstream(image / "bin/actionhost") << "#!/bin/sh\nexec sleep 300\n";
    std::filesystem::permissions(image / "bin/actionhost", std::filesystem::perms::owner_all);
    auto s = make_cloud_runtime(options([&](Config &c) {
        c.set("daytona.install_dir", image.path());
        c.set("daytona.init_timeout", 3);
    }));
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("did not answer /alive"), std::string::npos) << e;
}
