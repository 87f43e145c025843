// The host core (router, routes, API) with fixture plugin modules (tests/abi/fixtures, real .so modules
// loaded as any third party's): validation from the provider's declaration, options and fallbacks
// declared in manifests, the promise never to destroy a plugin under a running call, and a route's error
// text reaching the client. Requests go through the in-memory exchange the cli runtime uses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <actionhost/common/http/memory_exchange.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "core/host_core.hpp"
#include "fixture_host.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::host;
using nlohmann::json;
using namespace std::chrono_literals;
namespace http = actionhost::common::http;
using host_test::FixtureHost;

namespace {


std::string detail(const http::ExchangeResponse &r) { return json::parse(r.body).value("detail", ""); }

}  // namespace

TEST(Router, ValidatesAgainstTheProvidersDeclaration) {
    FixtureHost h;
    auto missing = h.act({{"action", "fixture_sleep"}, {"args", json::object()}});
    EXPECT_EQ(missing.status, 500);
    EXPECT_EQ(detail(missing), "Internal server error: missing required argument 'seconds' for action 'fixture_sleep'");
    EXPECT_EQ(detail(h.act({{"action", "fixture_sleep"}, {"args", {{"seconds", "soon"}}}})),
              "Internal server error: argument 'seconds' of action 'fixture_sleep' must be a number, got \"soon\"");
    EXPECT_EQ(detail(h.act({{"action", "nobody_declares_this"}})), "Internal server error: 'nobody_declares_this' is not a valid action type");
    EXPECT_EQ(detail(h.act({{"action", "message"}, {"args", {{"content", "hi"}}}})),
              "Internal server error: the action 'message' is not executed by the runtime");
    // Declared by name only: arguments pass through, the plugin (an echo) sees them as sent.
    auto echo = h.act({{"action", "fixture_echo"}, {"args", {{"anything", {1, 2}}}}});
    ASSERT_EQ(echo.status, 200) << echo.body;
    EXPECT_NE(json::parse(echo.body)["content"].get<std::string>().find("\"anything\":[1,2]"), std::string::npos) << echo.body;
    // The host's own actions are declared too.
    EXPECT_EQ(detail(h.act({{"action", "read"}, {"args", {{"path", 7}}}})),
              "Internal server error: argument 'path' of action 'read' must be a string, got 7");
}

// A flag the plugin's manifest declares turns it off; its actions then answer the manifest's error text.
TEST(Router, APluginDisabledByItsOptionAnswersItsUnavailableText) {
    FixtureHost h({}, {}, {"--no-fixture-sleep"});
    auto r = h.act({{"action", "fixture_sleep"}, {"args", {{"seconds", 0}}}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json::parse(r.body)["observation"], "error");
    EXPECT_EQ(json::parse(r.body)["content"], "Sleeping is disabled.");
    FixtureHost enabled;
    EXPECT_EQ(json::parse(enabled.act({{"action", "fixture_sleep"}, {"args", {{"seconds", 0}}}}).body)["content"], "slept");
}

// plugin.h: destroy never runs while an execute of the plugin runs. A plugin that ignores shutdown for
// longer than the grace is left loaded and alive, never destroyed under the call; the call still ends
// with its own observation.
TEST(Router, NeverDestroysAPluginUnderARunningCall) {
    FixtureHost h({}, {{"ACTIONHOST_SHUTDOWN_GRACE_SECONDS", "1"}});
    auto slow = std::async(std::launch::async, [&] { return h.act({{"action", "fixture_sleep"}, {"args", {{"seconds", 3}}}}); });
    std::this_thread::sleep_for(400ms);  // the call is inside the plugin
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(h.core->shutdown(), 1u);
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(waited, 900ms);
    EXPECT_LT(waited, 2500ms);
    auto answer = slow.get();
    ASSERT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(json::parse(answer.body)["content"], "slept");
}

TEST(Router, ShutdownWaitsForCallsThatEndInTime) {
    FixtureHost h({}, {{"ACTIONHOST_SHUTDOWN_GRACE_SECONDS", "10"}});
    auto call = std::async(std::launch::async, [&] { return h.act({{"action", "fixture_sleep"}, {"args", {{"seconds", 0.8}}}}); });
    std::this_thread::sleep_for(200ms);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(h.core->shutdown(), 0u);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 300ms) << "shutdown did not wait for the running call";
    EXPECT_EQ(call.get().status, 200);
    // Stopping: new actions are refused at once.
    EXPECT_EQ(h.act({{"action", "fixture_echo"}}).status, 503);
}

// A route's handle that fails says why with set_error(host, NULL, ...): the text reaches the client.
TEST(Routes, ARoutesErrorTextReachesTheClient) {
    FixtureHost h({"fx_route_error"});
    ASSERT_TRUE(h.core->load_start_plugins());
    auto r = h.request("GET", "/fx/fail");
    EXPECT_EQ(r.status, 500);
    EXPECT_EQ(detail(r), "The fx_route_error plugin failed to answer /fx/fail: the route's own reason: disk on fire");
}

// host.h: an error a plugin sets on its call with set_error(host, call, ...) before failing reaches the
// caller in the error observation, not a bare status.
TEST(Router, AnExecutesErrorTextReachesTheCaller) {
    FixtureHost h;
    auto r = h.act({{"action", "fixture_call_error"}, {"args", json::object()}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json::parse(r.body)["observation"], "error");
    EXPECT_EQ(json::parse(r.body)["content"],
              "The fx_call_error plugin failed to execute the action: the call's own reason: quota exceeded");
}

// Only the exact paths a plugin declares and answers are routed to it: a neighbour of its route, or a
// path no module declares, is refused and never reaches the plugin.
TEST(Routes, UnknownPathsAreRefused) {
    FixtureHost h({"fx_route_error"});
    ASSERT_TRUE(h.core->load_start_plugins());
    EXPECT_EQ(h.request("GET", "/fx/fail").status, 500);  // the plugin's own route: it answers (by failing)
    for (const char *path : {"/fx/fail/", "/fx/failx", "/fx", "/fx/other", "/nobody/declares/this"})
        EXPECT_EQ(h.request("GET", path).status, 404) << path;
}

// While the plugin is not loaded, the host answers its route as the manifest says (OpenHands answers
// /vscode/connection_token without its plugin).
TEST(Routes, AnUnloadedPluginsRouteGetsItsDeclaredFallback) {
    FixtureHost h;
    auto r = h.request("GET", "/fx/fail");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"token":null})");
    EXPECT_EQ(h.request("POST", "/fx/fail").status, 405);
}

TEST(HostCore, StartsTheAlwaysLoadedPluginsAndComputesItsKeys) {
    FixtureHost h({"fx_good"});
    EXPECT_EQ(h.core->start_plugins(), std::vector<std::string>{"fx_good"});
    EXPECT_STREQ(h.core->env().config_get("actionhost.plugins"), "fx_good");
    EXPECT_THROW(FixtureHost({"no_such_plugin"}), std::invalid_argument);
}
