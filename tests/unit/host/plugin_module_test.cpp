// PluginModule, the host's side of the one module loader (common/modules), with the fixture plugin
// modules of tests/abi/fixtures loaded in-process: each broken module refused with its one line, a good
// one executed with its partial output reaching the followers of its own session, in order.
#include "modules/plugin_module.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <actionhost/modules/manifest.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "http/stream_hub.hpp"
#include "modules/call_state.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::host;
namespace modules = actionhost::modules;

namespace {

const std::string kFixtures = AH_FIXTURE_DIR;

struct Loader {
    actionhost::testing::TempDir wd{"ahmodule"};
    HostEnvironment env{{wd.path(), "root", wd.path(), "test", static_cast<int>(getuid())}, {}};
    std::string error;
    std::unique_ptr<PluginModule> load(const std::string &name) {
        auto parsed = modules::read_manifest(kFixtures + "/" + name + "/manifest.json");
        EXPECT_TRUE(parsed) << parsed.error().message;
        error.clear();
        if (!parsed) return nullptr;
        auto loaded = PluginModule::load(parsed.value(), env);
        if (!loaded) error = loaded.error().message;
        return loaded ? std::move(loaded).value() : nullptr;
    }
    std::string refusal(const std::string &name) {
        EXPECT_EQ(load(name), nullptr);
        return error;
    }
};

std::string library(const std::string &name) { return kFixtures + "/" + name + "/libah_" + name + ".so"; }

// Runs one action through `m` as the router does, with emit_partial going to `hub` under `session`.
std::string run(PluginModule &m, StreamHub &hub, const std::string &session) {
    const std::string json = R"({"action":"fixture_echo","args":{}})";
    ah_call call;
    call.session = session;
    call.streams = &hub;
    ah_action_call_t c{};
    c.struct_size = sizeof c;
    c.call = &call;
    c.action_json = {json.data(), json.size()};
    c.action = "fixture_echo";
    c.session = session.c_str();
    c.cwd = "/";
    c.request_id = "";
    LiveCallGuard live(&call);
    PluginModule::Busy busy(m);
    EXPECT_EQ(m.execute(c), AH_OK);
    return call.observation.value_or("");
}

}  // namespace

TEST(PluginModule, RefusesEachBrokenModuleWithItsReason) {
    Loader l;
    EXPECT_EQ(l.refusal("fx_null_slot"), "refusing plugin module " + library("fx_null_slot") + ": its plugin struct has a NULL 'execute' function");
    EXPECT_EQ(l.refusal("fx_missing_symbol"),
              "refusing plugin module " + library("fx_missing_symbol") + ": it lacks the entry symbol actionhost_plugin_entry");
    EXPECT_NE(l.refusal("fx_wrong_major").find(": it was built for ABI " + std::to_string(AH_ABI_VERSION_MAJOR + 1) + ".0.0, this host implements"),
              std::string::npos) << l.error;
    EXPECT_NE(l.refusal("fx_newer_minor").find("(minor is newer)"), std::string::npos) << l.error;
    EXPECT_EQ(l.refusal("fx_lying_manifest"), "refusing plugin module " + library("fx_lying_manifest") +
                                                  ": its manifest says name \"fx_lying_manifest\" but the module says \"not_what_the_manifest_says\"");
    // The reason init gives with set_error(host, NULL, ...) reaches the refusal.
    EXPECT_EQ(l.refusal("fx_failing_init"), "refusing plugin module " + library("fx_failing_init") +
                                                ": init failed with status " + std::to_string(AH_ERR_IO) + ": the fixture refuses to start");
}

// emit_partial reaches the followers of the call's own session, in the order emitted; concurrent calls
// of two sessions never mix.
TEST(PluginModule, PartialOutputReachesItsOwnSessionInOrder) {
    Loader l;
    auto m = l.load("fx_good");
    ASSERT_NE(m, nullptr) << l.error;
    StreamHub hub;
    auto s1 = hub.subscribe("s1"), s2 = hub.subscribe("s2"), s3 = hub.subscribe("s3");
    constexpr int kCalls = 50;
    std::thread a([&] {
        for (int i = 0; i < kCalls; ++i) run(*m, hub, "s1");
    });
    std::thread b([&] {
        for (int i = 0; i < kCalls; ++i) run(*m, hub, "s2");
    });
    a.join();
    b.join();
    // What the fixture emits per call, in order (tests/abi/fixtures/fixture_plugin.cpp).
    const std::vector<std::string> kChunks = {"part one;", "part two;", "part three;"};
    for (auto *sub : {&s1, &s2}) {
        auto events = (*sub)->next(100);
        ASSERT_EQ(events.size(), kChunks.size() * kCalls);
        for (size_t i = 0; i < events.size(); ++i) {
            EXPECT_EQ(events[i].type, "output");
            EXPECT_EQ(nlohmann::json::parse(events[i].data)["chunk"], kChunks[i % kChunks.size()]) << i;
        }
    }
    EXPECT_TRUE(s3->next(10).empty());
    // And the observation names the call's own session.
    EXPECT_EQ(nlohmann::json::parse(run(*m, hub, "s3"))["extras"]["session"], "s3");
}

// A call handle kept past its execute is refused by the services, never used.
TEST(PluginModule, ServicesRefuseACallThatIsNotRunning) {
    Loader l;
    auto m = l.load("fx_good");
    ASSERT_NE(m, nullptr) << l.error;
    PluginHostContext ctx;
    ctx.env = &l.env;
    ctx.plugin_name = "test";
    init_host_services(ctx);
    ah_call stale;
    EXPECT_EQ(ctx.c.set_observation(&ctx.c, &stale, {"{}", 2}), AH_ERR_STATE);
    EXPECT_EQ(ctx.c.emit_partial(&ctx.c, &stale, {"x", 1}), AH_ERR_STATE);
    EXPECT_FALSE(stale.observation);
}
