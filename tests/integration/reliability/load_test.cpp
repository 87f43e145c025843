// The load test CI runs (a bounded version of bench/reliability): concurrent clients with mixed
// bash/read/write/edit actions against one host, and concurrent sandbox sessions; nothing may fail,
// nothing may be lost or torn, and the host's RSS must stay flat from one round to the next.
// Also run under ThreadSanitizer (the tsan preset: ctest --preset tsan -L load).
#include <gtest/gtest.h>

#include "support/sanitizers.hpp"

#include <cstdlib>
#include <memory>

#include "../runtimes/runtime_harness.hpp"
#include "load_driver.hpp"
#include "process_tree.hpp"
#include "support/host_process.hpp"

using namespace actionhost::testing;
using namespace reliability_test;
using nlohmann::json;

namespace {

int env_int(const char *name, int def) {
    const char *v = std::getenv(name);
    return v && *v ? std::atoi(v) : def;
}

// A client on its own keep-alive connection and bash session, sending an X-Request-ID per action as
// the wire client does.
ExecuteFn http_client(int port, int index, uint64_t round) {
    auto http = std::make_shared<Http>("127.0.0.1", port, 300);
    auto counter = std::make_shared<long>(0);
    // Client 0 uses the default session: with it, 64 clients are the bash plugin's 64 sessions at most.
    const std::string session = index == 0 ? "" : "c" + std::to_string(index);
    return [http, counter, session, index, round](const json &action) {
        const std::string id = "c" + std::to_string(index) + "-" + std::to_string(round) + "-" + std::to_string(++*counter);
        HttpResponse r = http->post_json("/execute_action", json({{"action", action}, {"session", session}}).dump(),
                                         {{"X-Request-ID", id}});
        if (r.status != 200) throw std::runtime_error("HTTP " + std::to_string(r.status) + ": " + r.body.substr(0, 300));
        return r.json();
    };
}

}  // namespace

TEST(Load, ConcurrentClientsWithMixedActionsLoseNothingAndRssStaysFlat) {
    const int clients = env_int("AH_LOAD_CLIENTS", 8), actions = env_int("AH_LOAD_ACTIONS", 100);
    HostOptions o;
    o.start_timeout_s = 60;
    HostProcess host(o);
    long rss[3] = {rss_kb(host.pid()), 0, 0};
    for (uint64_t round = 1; round <= 2; ++round) {
        LoadPlan plan{clients, actions, host.working_dir(), host.working_dir(), round};
        LoadReport r = run_load(plan, [&](int i) { return http_client(host.port(), i, round); });
        rss[round] = rss_kb(host.pid());
        std::cerr << "[load round " << round << "] " << clients << " clients: " << r.summary() << "; host RSS "
                  << rss[round] / 1024 << " MiB\n";
        EXPECT_EQ(r.errors, 0) << r.summary();
        EXPECT_EQ(r.lost_or_torn, 0) << r.summary();
        EXPECT_EQ(r.actions, static_cast<long>(clients) * actions) << r.summary();
    }
    // Flat: the second round (same work again) may not grow the host by more than a margin for the
    // allocator's and the bounded idempotency cache's fill.
    // (Not under ASan: its quarantine holds up to 256 MB of freed memory on purpose; the plain build checks.)
    if (!actionhost::testing::kAddressSanitizer) {
        EXPECT_LT(rss[2] - rss[1], 64 * 1024) << "RSS KiB: start " << rss[0] << ", round 1 " << rss[1] << ", round 2 " << rss[2];
    }
    EXPECT_EQ(host.get("/alive").status, 200);
    // Under the tsan preset the host reports races on its stderr (our log) and goes on: none allowed.
    EXPECT_EQ(host.log().find("ThreadSanitizer"), std::string::npos) << host.log().substr(0, 20000);
}

TEST(Load, ConcurrentSandboxSessionsLoseNothing) {
    const int sessions = env_int("AH_LOAD_SANDBOXES", 4), actions = env_int("AH_LOAD_SANDBOX_ACTIONS", 40);
    std::vector<std::unique_ptr<runtimes_test::StartedRuntime>> started(static_cast<size_t>(sessions));
    LoadPlan plan{sessions, actions, "/workspace", "", 1, false};
    std::mutex mu;
    std::vector<std::string> outside(static_cast<size_t>(sessions));
    LoadReport r = run_load(plan, [&](int i) -> ExecuteFn {
        auto s = runtimes_test::start_runtime("sandbox");
        auto *rt = s->runtime.get();
        {
            std::lock_guard lock(mu);
            started[static_cast<size_t>(i)] = std::move(s);
        }
        return [rt](const json &action) { return rt->execute(action); };
    });
    std::cerr << "[sandbox load] " << sessions << " sessions: " << r.summary() << "\n";
    EXPECT_EQ(r.errors, 0) << r.summary();
    EXPECT_EQ(r.lost_or_torn, 0) << r.summary();
    EXPECT_EQ(r.actions, static_cast<long>(sessions) * actions) << r.summary();
    // The runtimes were connected on the load's client threads, which have ended: their hosts must
    // live on (PR_SET_PDEATHSIG follows the forking thread, not the process; see process.cpp).
    for (auto &s : started) {
        ASSERT_TRUE(s);
        const json obs = s->runtime->execute({{"action", "run"}, {"args", {{"command", "echo alive"}}}, {"timeout", 60}});
        EXPECT_EQ(obs.value("content", ""), "alive") << obs.dump();
        s->runtime->close();
    }
}
