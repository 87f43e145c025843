// Lifetimes of the `docker` runtime (sandbox.lifetime, idle_timeout; docs/runtimes.md, "Lifetimes"),
// kept by ah-docker-keeper, a detached process of the client's user: a kept-alive container whose client
// has closed is removed on time, with its keeper, socket and records; an idle one is paused through the
// Engine API (docker inspect: Paused) and the next request — a plain wire client, no resume call, no
// retry — unpauses it and is answered; the control socket is nowhere in the container; an idle timeout
// the engine cannot serve (over TCP) is refused before anything starts. A real engine (started here when
// none runs) and the busybox test image; lifetimes of 2-4 s, every wait bounded.
#include <gtest/gtest.h>

#include <actionhost/client/state_store.hpp>
#include <actionhost/client/wire_client.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime_harness.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::client::Runtime;
using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// The container's State, or null once it is gone.
json container_state(const std::string &name) {
    const auto r = engine_request("GET", "/containers/" + name + "/json", "", "application/json", 30);
    if (r.status != 200) return nullptr;
    return json::parse(r.body, nullptr, false).value("State", json());
}

bool wait_for(const std::function<bool()> &done, std::chrono::seconds limit) {
    for (const auto t0 = Clock::now(); Clock::now() - t0 < limit; std::this_thread::sleep_for(std::chrono::milliseconds(100)))
        if (done()) return true;
    return false;
}

bool process_exists(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    return pid > 0 && close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

struct Kept {
    std::unique_ptr<StartedRuntime> s;
    std::string name, keeper_record, keeper_socket, client_record;
    pid_t keeper = -1;
};

Kept kept_container(const std::function<void(Config &)> &keys) {
    Kept k;
    k.s = start_runtime("docker", [&](Config &c) {
        c.set("sandbox.keep_runtime_alive", true);
        keys(c);
    });
    const std::string sid = k.s->runtime->session_id(), state = k.s->state->path();
    k.name = "openhands-runtime-" + sid;
    k.keeper_record = state + "/docker-" + sid + ".keeper.json";
    k.keeper_socket = state + "/docker-" + sid + ".keeper.sock";
    k.client_record = state + "/" + sid + ".json";
    std::ifstream in(k.keeper_record);
    k.keeper = json::parse(in, nullptr, false).value("pid", -1);
    return k;
}

// The session's runtime as a later client process makes it: not connected.
std::unique_ptr<Runtime> later_client(const Kept &k) {
    auto options = test_runtime_options("docker", k.s->workspace->path(), k.s->state->path());
    options.session_id = k.s->runtime->session_id();
    options.config.set("sandbox.keep_runtime_alive", true);
    options.config.set("sandbox.base_container_image", DockerForTests::image());
    return Runtime::create(options);
}

// A container a failed assertion would leave (paused, even): removed at the end of the test whatever
// happened; its keeper sees it gone and ends too.
struct RemoveAtEnd {
    const Kept &k;
    ~RemoveAtEnd() { engine_request("DELETE", "/containers/" + k.name + "?force=true", "", "application/json", 30); }
};

}  // namespace

TEST(DockerLifetime, AKeptContainerIsRemovedOnTimeWithItsKeeper) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const auto started = Clock::now();
    Kept k = kept_container([](Config &c) { c.set("sandbox.lifetime", 4); });
    RemoveAtEnd remove_at_end{k};
    ASSERT_TRUE(process_exists(k.keeper)) << k.keeper_record;
    EXPECT_TRUE(container_state(k.name).value("Running", false));
    EXPECT_EQ(fs::status(k.keeper_socket).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(k.s->runtime->lifetime().value("lifetime_s", 0), 4);
    // The agent, root in its container, does not see the control socket (the client's state directory).
    const json look = run(*k.s->runtime, "ls " + k.keeper_socket + " 2>&1; ls / | grep -c keeper");
    EXPECT_NE(look.value("content", "").find("No such file"), std::string::npos) << look.dump();
    k.s->runtime->close();  // kept: from here no client is connected
    ASSERT_TRUE(wait_for([&] { return container_state(k.name).is_null(); }, std::chrono::seconds(20))) << "still there";
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - started).count(), 3.9);
    EXPECT_TRUE(wait_for([&] { return !process_exists(k.keeper); }, std::chrono::seconds(5)));
    for (const auto &path : {k.keeper_record, k.keeper_socket, k.client_record}) EXPECT_FALSE(fs::exists(path)) << path;
}

TEST(DockerLifetime, AnIdleContainerIsPausedAndTheNextRequestUnpausesIt) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    Kept k = kept_container([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "pause");
    });
    RemoveAtEnd remove_at_end{k};
    // The agent talking to its own host does not keep the container awake.
    const json self = run(*k.s->runtime, "wget -q -O - http://127.0.0.1:$port/alive");
    EXPECT_NE(self.value("content", "").find("ok"), std::string::npos) << self.dump();
    run(*k.s->runtime, "(while :; do wget -q -O /dev/null http://127.0.0.1:$port/alive; sleep 0.3; done) >/dev/null 2>&1 &");
    const std::string url = k.s->runtime->url();
    const auto record = actionhost::client::StateStore(k.s->state->path()).get(k.s->runtime->session_id());
    ASSERT_TRUE(record);
    k.s->runtime->close();  // its connection goes with it
    ASSERT_TRUE(wait_for([&] { return container_state(k.name).value("Paused", false); }, std::chrono::seconds(15)))
        << container_state(k.name).dump();
    EXPECT_TRUE(later_client(k)->lifetime().value("paused", false));  // asking the keeper leaves it paused
    EXPECT_TRUE(container_state(k.name).value("Paused", false));
    // A plain wire client, as any program of OpenHands' would send it: no resume call, no retry.
    const auto t0 = Clock::now();
    actionhost::client::WireClient wire(url, record->value("session_api_key", ""));
    const json obs = wire.execute({{"action", "run"}, {"args", {{"command", "echo resumed"}, {"blocking", true}}}});
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
    EXPECT_NE(obs.value("content", "").find("resumed"), std::string::npos) << obs.dump();
    EXPECT_FALSE(container_state(k.name).value("Paused", true));
    later_client(k)->stop_kept_alive();
    EXPECT_TRUE(container_state(k.name).is_null());
    EXPECT_TRUE(wait_for([&] { return !process_exists(k.keeper); }, std::chrono::seconds(5)));
    EXPECT_FALSE(fs::exists(k.keeper_socket));
}

// Refused before any engine is asked: its containers' connections could not be read.
TEST(DockerLifetime, AnIdleTimeoutNeedsTheEngineOnThisMachine) {
    actionhost::testing::TempDir ws("ahrt-ws"), state("ahrt-state");
    auto o = test_runtime_options("docker", ws.path(), state.path());
    o.config.set("sandbox.docker_socket", "tcp://127.0.0.1:9");
    o.config.set("sandbox.base_container_image", DockerForTests::image());
    o.config.set("sandbox.idle_timeout", 30);
    if (const char *h = std::getenv("DOCKER_HOST"); h && *h) GTEST_SKIP() << "DOCKER_HOST names the engine here";
    try {
        Runtime::create(std::move(o))->connect();
        FAIL() << "started";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("sandbox.idle_timeout needs the Docker engine on this machine"), std::string::npos) << e.what();
    }
}
