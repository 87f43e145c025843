// StreamHub: live output fanned out to followers, bounded per follower, closed at shutdown.
#include "http/stream_hub.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace actionhost::host;

TEST(StreamHub, DeliversInOrderToEveryFollowerOfTheSession) {
    StreamHub hub;
    EXPECT_FALSE(hub.has_followers("s"));
    auto a = hub.subscribe("s"), b = hub.subscribe("s"), other = hub.subscribe("t");
    EXPECT_TRUE(hub.has_followers("s"));
    hub.publish("s", "output", "1");
    hub.publish("s", "output", "2");
    for (auto *sub : {&a, &b}) {
        auto events = (*sub)->next(100);
        ASSERT_EQ(events.size(), 2u);
        EXPECT_EQ(events[0].data, "1");
        EXPECT_EQ(events[1].data, "2");
    }
    EXPECT_TRUE(other->next(10).empty());
    hub.unsubscribe("s", a);
    hub.unsubscribe("s", b);
    EXPECT_FALSE(hub.has_followers("s"));
}

TEST(StreamHub, ASlowFollowerLosesItsOldestEventsNotTheHostsMemory) {
    StreamHub hub;
    auto sub = hub.subscribe("s");
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 20; ++i) hub.publish("s", "output", chunk);  // 20 MiB to one who reads nothing
    auto events = sub->next(100);
    size_t bytes = 0, dropped_notes = 0;
    for (const auto &e : events) {
        bytes += e.data.size();
        if (e.type == "dropped") ++dropped_notes;
    }
    EXPECT_LE(bytes, StreamHub::kMaxQueuedBytes + 4096);
    EXPECT_EQ(dropped_notes, 1u);
}

TEST(StreamHub, CloseAllWakesAWaitingFollower) {
    StreamHub hub;
    auto sub = hub.subscribe("s");
    std::thread closer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        hub.close_all();
    });
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(sub->next(10000).empty());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_TRUE(sub->closed());
    closer.join();
}

// Publishers of two sessions at once: each follower gets its own session's events, all of them, in the
// order they were published, and none of the other session's.
TEST(StreamHub, ConcurrentSessionsNeverMix) {
    StreamHub hub;
    auto a = hub.subscribe("a"), b = hub.subscribe("b");
    constexpr int kEvents = 2000;
    auto publisher = [&](const std::string &session) {
        for (int i = 0; i < kEvents; ++i) hub.publish(session, "output", session + std::to_string(i));
    };
    std::thread ta(publisher, "a"), tb(publisher, "b");
    ta.join();
    tb.join();
    for (auto &[sub, session] : {std::pair{&a, std::string("a")}, std::pair{&b, std::string("b")}}) {
        std::vector<std::string> got;
        for (int round = 0; round < 100 && got.size() < kEvents; ++round)
            for (auto &e : (*sub)->next(10)) got.push_back(e.data);
        ASSERT_EQ(got.size(), static_cast<size_t>(kEvents)) << session;
        for (int i = 0; i < kEvents; ++i) ASSERT_EQ(got[i], session + std::to_string(i));
    }
}
