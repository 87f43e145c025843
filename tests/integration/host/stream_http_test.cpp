// The additive /stream endpoint: live partial output of a session's running action, as SSE.
#include <gtest/gtest.h>

#include <actionhost/abi.h>

#include <atomic>
#include <thread>

#include "support/host_process.hpp"

using namespace actionhost::testing;
using nlohmann::json;

TEST(HostStream, FollowersSeeStartPartialOutputAndEnd) {
    HostProcess host(HostOptions{.args = {"--plugin-dir", AH_FIXTURE_DIR}});
    // Load the fixture first so the stream sees only the action below.
    host.execute({{"action", "fixture_echo"}}, "follow");
    HttpResponse streamed;
    // The follower's answer is read only after join(); until then the loop asks this flag, not the body.
    std::atomic<bool> answered{false};
    std::thread follower([&] {
        Http http("127.0.0.1", host.port(), 60);
        streamed = http.get("/stream?session=follow&once=1");
        answered = true;
    });
    // Wait until the follower is subscribed: its subscription shows in nothing public, so retry the action
    // until the stream has ended (once=1 ends it after the first action_end it sees). Bounded.
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        host.execute({{"action", "fixture_echo"}, {"args", {{"n", i}}}}, "follow");
        if (answered) break;
    }
    follower.join();
    EXPECT_EQ(streamed.status, 200);
    EXPECT_EQ(streamed.headers["content-type"], "text/event-stream");
    const std::string &b = streamed.body;
    const size_t start = b.find("event: action_start");
    const size_t one = b.find("\"chunk\":\"part one;\"");
    const size_t two = b.find("\"chunk\":\"part two;\"");
    const size_t end = b.find("event: action_end");
    ASSERT_NE(start, std::string::npos) << b;
    ASSERT_NE(one, std::string::npos) << b;
    ASSERT_NE(two, std::string::npos) << b;
    ASSERT_NE(end, std::string::npos) << b;
    EXPECT_LT(start, one);
    EXPECT_LT(one, two);
    EXPECT_LT(two, end);
    // Unmarked chunks keep the event shape followers knew; a chunk marked through
    // actionhost.partial_streams/1 carries its stream, in call order.
    EXPECT_NE(b.find("{\"chunk\":\"part one;\"}"), std::string::npos) << b;
    const size_t three = b.find("{\"chunk\":\"part three;\",\"stream\":\"stderr\"}");
    ASSERT_NE(three, std::string::npos) << b;
    EXPECT_LT(two, three);
    EXPECT_LT(three, end);
    // An unknown stream is refused, and nothing of it is published.
    const json obs = host.execute({{"action", "fixture_echo"}}, "follow");
    EXPECT_EQ(obs["extras"].value("bad_stream_status", -1), AH_ERR_INVALID_ARGUMENT) << obs.dump();
    EXPECT_EQ(b.find("\"chunk\":\"x\""), std::string::npos) << b;
}

TEST(HostStream, OtherSessionsAreNotMixedIn) {
    HostProcess host(HostOptions{.args = {"--plugin-dir", AH_FIXTURE_DIR}});
    host.execute({{"action", "fixture_echo"}}, "mine");
    HttpResponse streamed;
    std::atomic<bool> answered{false};
    std::thread follower([&] {
        Http http("127.0.0.1", host.port(), 60);
        streamed = http.get("/stream?session=mine&once=1");
        answered = true;
    });
    for (int i = 0; i < 100 && !answered; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        host.execute({{"action", "fixture_echo"}, {"args", {{"marker", "other-session"}}}}, "theirs");
        host.execute({{"action", "fixture_echo"}, {"args", {{"marker", "my-session"}}}}, "mine");
    }
    follower.join();
    EXPECT_NE(streamed.body.find("my-session"), std::string::npos) << streamed.body;
    EXPECT_EQ(streamed.body.find("other-session"), std::string::npos) << streamed.body;
}
