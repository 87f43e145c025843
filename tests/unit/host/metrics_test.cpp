// GET /metrics and GET /logs of the host core, through the in-memory exchange the cli runtime uses, with
// the fixture plugins: every action counted once under its name and outcome, its time in the histogram,
// plugin loads and refusals, the log ring's numbering; and the key as a Bearer token.
#include <gtest/gtest.h>
#include <unistd.h>

#include <actionhost/common/http/memory_exchange.hpp>
#include <actionhost/common/json_io.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "core/host_core.hpp"
#include "fixture_host.hpp"
#include "http/auth.hpp"
#include "ops/log_ring.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::host;
using nlohmann::json;
using namespace std::chrono_literals;
namespace http = actionhost::common::http;
using host_test::FixtureHost;

namespace {


// The value of the sample `series` (name and labels exactly as exposed), or -1 when absent.
double sample(const std::string &text, const std::string &series) {
    const size_t at = text.find("\n" + series + " ");
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + series.size() + 2));
}

}  // namespace

TEST(HostMetrics, CountsEachActionOnceByNameAndOutcome) {
    FixtureHost h;
    for (int i = 0; i < 3; ++i) EXPECT_EQ(h.act({{"action", "fixture_echo"}, {"args", {{"n", i}}}}).status, 200);
    EXPECT_EQ(h.act({{"action", "fixture_call_error"}, {"args", json::object()}}).status, 200);  // an error observation
    EXPECT_EQ(h.act({{"action", "read"}, {"args", {{"path", h.wd / "missing"}}}}).status, 200);  // the host's own, an error
    EXPECT_EQ(h.act({{"action", "fixture_sleep"}, {"args", json::object()}}).status, 500);       // invalid arguments
    EXPECT_EQ(h.act({{"action", "nobody_declares_this"}}).status, 500);                          // counted as "other"
    EXPECT_EQ(h.act({{"action", "nobody_either"}}).status, 500);

    const auto r = h.request("GET", "/metrics");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
    const std::string &m = r.body;
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="fixture_echo",outcome="ok"})"), 3) << m;
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="fixture_echo",outcome="error"})"), 0);
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="fixture_call_error",outcome="error"})"), 1);
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="read",outcome="error"})"), 1);
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="fixture_sleep",outcome="refused"})"), 1);
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="other",outcome="refused"})"), 2);
    EXPECT_EQ(m.find("nobody_declares_this"), std::string::npos) << "a client's name never becomes a label";
    // The histogram: one observation per action, every bucket cumulative up to +Inf.
    EXPECT_EQ(sample(m, R"(actionhost_action_duration_seconds_count{action="fixture_echo"})"), 3);
    EXPECT_EQ(sample(m, R"(actionhost_action_duration_seconds_bucket{action="fixture_echo",le="+Inf"})"), 3);
    EXPECT_GT(sample(m, R"(actionhost_action_duration_seconds_sum{action="fixture_echo"})"), 0);
    EXPECT_LT(sample(m, R"(actionhost_action_duration_seconds_sum{action="fixture_echo"})"), 10);
    EXPECT_EQ(sample(m, R"(actionhost_action_duration_seconds_count{action="other"})"), 2);
    EXPECT_NE(m.find("# TYPE actionhost_action_duration_seconds histogram"), std::string::npos);
    EXPECT_NE(m.find("# TYPE actionhost_actions_total counter"), std::string::npos);
    // The host's own figures and the plugins loaded on first use.
    EXPECT_GT(sample(m, "actionhost_host_memory_rss_bytes"), 0);
    EXPECT_GE(sample(m, "actionhost_host_cpu_seconds_total"), 0);  // present (a young process may have used no tick)
    EXPECT_GT(sample(m, R"(actionhost_sandbox_disk_size_bytes{path="/"})"), 0);
    EXPECT_EQ(sample(m, "actionhost_sessions"), 1);
    EXPECT_EQ(sample(m, R"(actionhost_plugin_loaded{plugin="fx_good"})"), 1);
    EXPECT_EQ(sample(m, R"(actionhost_plugin_loaded{plugin="fx_call_error"})"), 1);

    // A replayed request (X-Request-ID seen before) ran once and is counted once.
    const std::string body = actionhost::common::dump_json(json{{"action", {{"action", "fixture_echo"}}}});
    for (int i = 0; i < 2; ++i) EXPECT_EQ(h.request("POST", "/execute_action", body, {{"X-Request-ID", "once"}}).status, 200);
    EXPECT_EQ(sample(h.request("GET", "/metrics").body, R"(actionhost_actions_total{action="fixture_echo",outcome="ok"})"), 4);
}

// A refusal by the policy stage is "denied", apart from the plugin's own errors: the action never ran.
TEST(HostMetrics, PolicyRefusalsCountAsDenied) {
    actionhost::testing::TempDir secret{"ahsecret"};
    FixtureHost h({}, {{"security.deny_paths", "[\"" + secret.path() + "\"]"}});
    ASSERT_TRUE(h.core->load_start_plugins());  // the policy stage is made here
    const auto denied = h.act({{"action", "write"}, {"args", {{"path", secret / "x"}, {"content", "x"}}}});
    ASSERT_EQ(denied.status, 200);
    EXPECT_NE(denied.body.find("denied by policy"), std::string::npos) << denied.body;
    EXPECT_EQ(h.act({{"action", "read"}, {"args", {{"path", secret / "y"}}}}).status, 200);
    EXPECT_EQ(h.act({{"action", "read"}, {"args", {{"path", h.wd / "missing"}}}}).status, 200);  // allowed, an error
    const std::string m = h.request("GET", "/metrics").body;
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="write",outcome="denied"})"), 1) << m;
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="write",outcome="error"})"), 0);
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="read",outcome="denied"})"), 1);
    EXPECT_EQ(sample(m, R"(actionhost_actions_total{action="read",outcome="error"})"), 1);
    EXPECT_FALSE(std::filesystem::exists(secret / "x"));
}

TEST(HostMetrics, CountsPluginLoadFailures) {
    FixtureHost h;
    ASSERT_EQ(h.act({{"action", "fixture_failing_init"}}).status / 100, 5);  // whatever it answers, it never loaded
    const std::string m = h.request("GET", "/metrics").body;
    EXPECT_EQ(sample(m, "actionhost_plugin_load_failures"), 1) << m;
    EXPECT_EQ(sample(m, R"(actionhost_plugin_load_failed{plugin="fx_failing_init"})"), 1) << m;
}

TEST(HostLogs, TheRingNumbersLinesAndDropsTheOldest) {
    LogRing ring(3, 1 << 20);
    for (int i = 0; i < 5; ++i) ring.append("line " + std::to_string(i) + "\n");
    auto page = ring.since(0, 0ms);
    EXPECT_EQ(page.lines, (std::vector<std::string>{"line 2", "line 3", "line 4"}));
    EXPECT_EQ(page.dropped, 2u);
    EXPECT_EQ(page.next, 5u);
    EXPECT_TRUE(ring.since(5, 0ms).lines.empty());
    EXPECT_EQ(ring.since(99, 0ms).next, 5u) << "a number from another host's life starts from now";
    // A follower waiting for the next line gets it as soon as it is written.
    std::thread writer([&] {
        std::this_thread::sleep_for(50ms);
        ring.append("line 5");
    });
    const auto started = std::chrono::steady_clock::now();
    page = ring.since(5, 10s);
    writer.join();
    EXPECT_EQ(page.lines, std::vector<std::string>{"line 5"});
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    // Bounded by bytes too.
    LogRing small(100, 10);
    small.append("12345");
    small.append("67890");
    small.append("abcde");
    EXPECT_EQ(small.since(0, 0ms).lines, (std::vector<std::string>{"67890", "abcde"}));
}

TEST(HostLogs, GetLogsServesTheHostsLinesAndRefusesBadNumbers) {
    FixtureHost h;
    EXPECT_EQ(h.act({{"action", "fixture_echo"}}).status, 200);  // loads fx_good, which the host logs
    const auto r = h.request("GET", "/logs");
    ASSERT_EQ(r.status, 200) << r.body;
    const json page = json::parse(r.body);
    bool found = false;
    for (const auto &line : page["lines"]) found = found || line.get<std::string>().find("loaded plugin fx_good") != std::string::npos;
    EXPECT_TRUE(found) << r.body;
    const uint64_t next = page["next"];
    EXPECT_EQ(json::parse(h.request("GET", "/logs?since=" + std::to_string(next)).body)["lines"], json::array());
    // A follower's long poll answers as soon as a line is logged (fx_call_error loaded on first use).
    std::thread later([&] {
        std::this_thread::sleep_for(100ms);
        h.act({{"action", "fixture_call_error"}, {"args", json::object()}});
    });
    const auto started = std::chrono::steady_clock::now();
    const json waited = json::parse(h.request("GET", "/logs?wait=20&since=" + std::to_string(next)).body);
    later.join();
    EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
    ASSERT_FALSE(waited["lines"].empty());
    EXPECT_NE(waited["lines"][0].get<std::string>().find("fx_call_error"), std::string::npos) << waited;
    EXPECT_EQ(h.request("GET", "/logs?since=-1").status, 422);
    EXPECT_EQ(h.request("GET", "/logs?wait=31").status, 422);
    EXPECT_EQ(h.request("GET", "/logs?wait=soon").status, 422);
    EXPECT_EQ(h.request("POST", "/metrics").status, 405);
}

TEST(HostAuth, BearerTokenIsTheKeyToo) {
    EXPECT_EQ(ApiKeyCheck::presented_key("k1", "Bearer k2"), "k1") << "X-Session-API-Key comes first";
    EXPECT_EQ(ApiKeyCheck::presented_key("", "Bearer k2"), "k2");
    EXPECT_EQ(ApiKeyCheck::presented_key("", "bearer  k2"), "k2");
    EXPECT_EQ(ApiKeyCheck::presented_key("", "Basic azI6"), "");
    EXPECT_EQ(ApiKeyCheck::presented_key("", "Bearer"), "");
    EXPECT_EQ(ApiKeyCheck::presented_key("", "Bearer "), "");

    FixtureHost h({}, {{"SESSION_API_KEY", "s3cret"}});
    EXPECT_EQ(h.request("GET", "/metrics").status, 403);
    EXPECT_EQ(h.request("GET", "/metrics", "", {{"Authorization", "Bearer wrong"}}).status, 403);
    EXPECT_EQ(h.request("GET", "/metrics", "", {{"Authorization", "Basic czNjcmV0"}}).status, 403);
    EXPECT_EQ(h.request("GET", "/metrics", "", {{"Authorization", "Bearer s3cret"}}).status, 200);
    EXPECT_EQ(h.request("GET", "/metrics", "", {{"X-Session-API-Key", "s3cret"}}).status, 200);
    EXPECT_EQ(h.request("GET", "/logs", "", {{"Authorization", "Bearer s3cret"}}).status, 200);
    EXPECT_EQ(h.request("GET", "/logs").status, 403);
}
