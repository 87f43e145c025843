// The runloop backend against RunloopApiFake (Runloop REST API v1, devboxes really run on this machine):
// provision → wait ready → actions → suspend/resume → shutdown, the shared conformance set, attach, and
// the error cases. Every test ends with no devbox left running.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "cloud_runtime.hpp"
#include "runloop_api_fake.hpp"
#include "support/cloud_fakes/test_tls.hpp"

using namespace cloud_fakes;
using actionhost::client::Config;
using actionhost::client::RuntimeError;
using nlohmann::json;

namespace {

const char *kKey = "rl-test-key";

class RunloopApiFakeTest : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_TRUE(fake.live_devboxes().empty()) << ::testing::PrintToString(fake.live_devboxes());
    }
    CloudRuntimeOptions options(std::function<void(Config &)> more = {}) {
        std::string url = fake.url();
        int port = free_port();
        return {"runloop", [url, port, more](Config &c) {
                    c.set("runloop.base_url", url);
                    c.set("runloop.port", port);
                    if (more) more(c);
                }};
    }
    RunloopApiFake fake{kKey};
    ScopedEnv key{"RUNLOOP_API_KEY", kKey};
    ScopedEnv base{"RUNLOOP_BASE_URL", std::nullopt};
};

// Connecting is expected to fail: returns the error text.
std::string connect_error(runtimes_test::StartedRuntime &s) {
    try {
        s.runtime->connect();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    ADD_FAILURE() << "connect succeeded";
    return "";
}

}  // namespace

TEST_F(RunloopApiFakeTest, ProvisionRunSuspendResumeShutdown) {
    auto s = start_cloud_runtime(options());
    // The create call carried OpenHands' devbox shape.
    json body = fake.last_create_body();
    EXPECT_EQ(body.value("name", ""), s->runtime->session_id());
    EXPECT_EQ(body.value("prebuilt", ""), "openhands");
    EXPECT_EQ(body["launch_parameters"].value("resource_size_request", ""), "LARGE");
    EXPECT_EQ(body["metadata"].value("container-name", ""), "openhands-runtime-" + s->runtime->session_id());
    EXPECT_TRUE(body["environment_variables"].contains("SESSION_API_KEY"));
    ASSERT_EQ(fake.devboxes().size(), 1u);
    EXPECT_EQ(fake.devboxes().begin()->second, "running");
    EXPECT_EQ(s->runtime->runtime_id(), fake.devboxes().begin()->first);

    runtimes_test::check_bash(*s);
    EXPECT_EQ(runtimes_test::exit_code(runtimes_test::run(*s->runtime, "cd /tmp && export MARK=kept")), 0);
    s->runtime->pause();
    EXPECT_EQ(fake.devboxes().begin()->second, "suspended");
    s->runtime->resume();
    EXPECT_EQ(fake.devboxes().begin()->second, "running");
    // The same bash session survived the suspension.
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo $MARK $(pwd)").value("content", ""), "kept /tmp");
    s->runtime->close();
    EXPECT_EQ(fake.devboxes().begin()->second, "shutdown");
    EXPECT_EQ(s->runtime->last_status(), "STATUS$STOPPED");
}

TEST_F(RunloopApiFakeTest, ConformanceSet) {
    auto s = start_cloud_runtime(options());
    runtimes_test::check_read_write(*s);
    runtimes_test::check_edit(*s);
    runtimes_test::check_upload_download(*s);
    s->runtime->close();
}

TEST_F(RunloopApiFakeTest, KeptAliveDevboxIsReattachedBySessionName) {
    actionhost::testing::TempDir state("rl-state");
    int port = free_port();
    std::string url = fake.url();
    auto tweak = [&](bool keep) {
        return [url, port, keep](Config &c) {
            c.set("runloop.base_url", url);
            c.set("runloop.port", port);
            c.set("sandbox.keep_runtime_alive", keep);
        };
    };
    auto first = start_cloud_runtime({"runloop", tweak(true), "rlsession1", state.path()});
    EXPECT_EQ(runtimes_test::exit_code(runtimes_test::run(*first->runtime, "echo one > /dev/null")), 0);
    first->runtime->close();
    first.reset();
    ASSERT_EQ(fake.live_devboxes().size(), 1u);  // kept

    auto second = start_cloud_runtime({"runloop", tweak(false), "rlsession1", state.path()});
    EXPECT_EQ(fake.devboxes().size(), 1u);  // attached, none created
    EXPECT_EQ(runtimes_test::run(*second->runtime, "echo two").value("content", ""), "two");
    second->runtime->close();
}

TEST_F(RunloopApiFakeTest, RetriesRateLimitsAndServerErrors) {
    fake.fail_next("POST /v1/devboxes", 429);
    fake.fail_next("GET /v1/devboxes", 503);
    auto s = start_cloud_runtime(options());
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo ok").value("content", ""), "ok");
    int creates = 0;
    for (const auto &r : fake.requests()) creates += r == "POST /v1/devboxes" ? 1 : 0;
    EXPECT_EQ(creates, 2);  // the 429, then the create
    s->runtime->close();
}

// Gaps between the calls of `call` ("METHOD /path"), in seconds.
std::vector<double> gaps_between(const RunloopApiFake &fake, const std::string &call) {
    const auto names = fake.requests();
    const auto times = fake.request_times();
    std::vector<double> gaps;
    std::optional<std::chrono::steady_clock::time_point> last;
    for (size_t i = 0; i < names.size() && i < times.size(); ++i) {
        if (names[i] != call) continue;
        if (last) gaps.push_back(std::chrono::duration<double>(times[i] - *last).count());
        last = times[i];
    }
    return gaps;
}

TEST_F(RunloopApiFakeTest, RetryWaitsAsLongAsTheApiAsks) {
    // The client's own first wait is 0.75–1 s; the API asks for 1.6 s (retry-after-ms wins over
    // retry-after, as in Runloop's Stainless client).
    fake.fail_next("POST /v1/devboxes", 429, 1, {{"retry-after-ms", "1600"}, {"retry-after", "0"}});
    auto s = start_cloud_runtime(options());
    const auto gaps = gaps_between(fake, "POST /v1/devboxes");
    ASSERT_EQ(gaps.size(), 1u);
    EXPECT_GE(gaps[0], 1.6);
    EXPECT_LT(gaps[0], 30.0);
    s->runtime->close();
}

TEST_F(RunloopApiFakeTest, ShouldRetryHeaderOverridesTheStatus) {
    // A 400 is never retried on its own, but the API says it should be; a 503 always is, but the API
    // says no.
    fake.fail_next("POST /v1/devboxes", 400, 1, {{"x-should-retry", "true"}, {"retry-after", "0"}});
    {
        auto s = start_cloud_runtime(options());
        EXPECT_EQ(gaps_between(fake, "POST /v1/devboxes").size(), 1u);  // the 400, then the create
        s->runtime->close();
    }
    const size_t before = fake.requests().size();
    fake.fail_next("POST /v1/devboxes", 503, 1, {{"x-should-retry", "false"}});
    auto s = make_cloud_runtime(options());
    const std::string error = connect_error(*s);
    EXPECT_NE(error.find("503"), std::string::npos) << error;
    size_t creates = 0;
    const auto all = fake.requests();
    for (size_t i = before; i < all.size(); ++i) creates += all[i] == "POST /v1/devboxes" ? 1 : 0;
    EXPECT_EQ(creates, 1u);
}

TEST_F(RunloopApiFakeTest, MissingApiKeyIsAClearErrorAndCreatesNothing) {
    ScopedEnv none("RUNLOOP_API_KEY", std::nullopt);
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("RUNLOOP_API_KEY is not set"), std::string::npos) << e;
    EXPECT_TRUE(fake.requests().empty());
}

TEST_F(RunloopApiFakeTest, WrongApiKeyReportsTheProviderRefusal) {
    ScopedEnv wrong("RUNLOOP_API_KEY", "not-the-key");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("401"), std::string::npos) << e;
    EXPECT_TRUE(fake.devboxes().empty());
}

TEST_F(RunloopApiFakeTest, BadBaseUrlsAreRefusedBeforeAnyCall) {
    for (std::string bad : {"ftp://api.runloop.ai", "http://", "https://:443", "http://host:99999"}) {
        auto s = make_cloud_runtime(options([bad](Config &c) { c.set("runloop.base_url", bad); }));
        std::string e = connect_error(*s);
        EXPECT_NE(e.find("RUNLOOP_BASE_URL"), std::string::npos) << bad << ": " << e;
    }
    // Nothing listens there: a transport error after the retries (kept short by a refused port).
    EXPECT_TRUE(fake.requests().empty());
}

TEST_F(RunloopApiFakeTest, FailedDevboxIsReportedWithItsReason) {
    fake.fail_next_devbox("out_of_memory");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("out_of_memory"), std::string::npos) << e;
    ASSERT_EQ(fake.devboxes().size(), 1u);
    EXPECT_EQ(fake.devboxes().begin()->second, "failure");
}

TEST_F(RunloopApiFakeTest, HostThatNeverAnswersTimesOutAndIsShutDown) {
    // An image whose actionhost never serves: the devbox runs, its tunnel answers 502.
    actionhost::testing::TempDir image("rl-image");
    std::filesystem::create_directories(image / "bin");
    std::ofstream(image / "bin/actionhost") << "#!/bin/sh\nexec sleep 300\n";
    std::filesystem::permissions(image / "bin/actionhost", std::filesystem::perms::owner_all);
    auto s = make_cloud_runtime(options([&](Config &c) {
        c.set("runloop.install_dir", image.path());
        c.set("runloop.init_timeout", 3);
    }));
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("did not answer /alive"), std::string::npos) << e;
    ASSERT_EQ(fake.devboxes().size(), 1u);
    EXPECT_EQ(fake.devboxes().begin()->second, "shutdown");
}

TEST_F(RunloopApiFakeTest, DevboxWhoseHostExitsIsReported) {
    actionhost::testing::TempDir image("rl-image");
    std::filesystem::create_directories(image / "bin");
    std::ofstream(image / "bin/actionhost") << "#!/bin/sh\necho no such luck >&2; exit 3\n";
    std::filesystem::permissions(image / "bin/actionhost", std::filesystem::perms::owner_all);
    auto s = make_cloud_runtime(options([&](Config &c) {
        c.set("runloop.install_dir", image.path());
        c.set("runloop.init_timeout", 20);
    }));
    std::string e = connect_error(*s);
    // Either the devbox was seen shut down (entrypoint_exit) or the wait ran out: never success.
    EXPECT_TRUE(e.find("entrypoint_exit") != std::string::npos || e.find("did not answer") != std::string::npos) << e;
}

// Over https://, as the real API and its tunnels are: the API calls and the wire both go through the
// client library's TLS transport, trusting the test CA that signed the fake's certificate through $SSL_CERT_FILE.
TEST(RunloopApiFakeTls, ProvisionAndRunOverHttps) {
    actionhost::testing::TestCertificateAuthority ca;
    ScopedEnv trust("SSL_CERT_FILE", ca.ca_cert_file());
    RunloopApiFake fake(kKey, ca.server_files());
    ScopedEnv key("RUNLOOP_API_KEY", kKey);
    ScopedEnv base("RUNLOOP_BASE_URL", fake.url());
    ASSERT_EQ(fake.url().rfind("https://", 0), 0u);
    int port = free_port();
    auto s = start_cloud_runtime({"runloop", [port](Config &c) { c.set("runloop.port", port); }});
    EXPECT_EQ(s->runtime->url().rfind("https://127.0.0.1:", 0), 0u) << s->runtime->url();
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo secure").value("content", ""), "secure");
    s->runtime->close();
    EXPECT_TRUE(fake.live_devboxes().empty());
}

TEST(RunloopApiFakeTls, UntrustedCertificateIsAClearError) {
    actionhost::testing::TestCertificateAuthority ca;
    ScopedEnv trust("SSL_CERT_FILE", std::nullopt);
    RunloopApiFake fake(kKey, ca.server_files());
    ScopedEnv key("RUNLOOP_API_KEY", kKey);
    ScopedEnv base("RUNLOOP_BASE_URL", fake.url());
    auto s = make_cloud_runtime({"runloop", [](Config &c) { c.set("runloop.port", free_port()); }});
    const auto asked = std::chrono::steady_clock::now();
    std::string e = connect_error(*s);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    EXPECT_NE(e.find("cannot reach the Runloop API"), std::string::npos) << e;
    EXPECT_NE(e.find("TLS handshake failed"), std::string::npos) << e;
    EXPECT_NE(e.find("certificate verify failed"), std::string::npos) << e;
    // Not retried: five retries with backoff took 23-31 s to this same error.
    EXPECT_LT(waited, 5.0) << e;
    EXPECT_TRUE(fake.devboxes().empty());
}
