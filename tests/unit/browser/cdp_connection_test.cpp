// plugins/browser/src/cdp_connection: the events buffered for waiters stay bounded in count and bytes,
// whatever is written to the browser's pipe.
#include "cdp_connection.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

using namespace actionhost::browser;
using actionhost::common::io::UniqueFd;

namespace {

// A connection whose "browser" is this test: it writes NUL-terminated messages into the answers pipe.
struct FakeBrowserPipes {
    UniqueFd commands_theirs, answers_ours;
    std::unique_ptr<CdpConnection> cdp;
    explicit FakeBrowserPipes(size_t max_event_bytes = kMaxBufferedEventBytes) {
        int commands[2], answers[2];
        EXPECT_EQ(::pipe2(commands, O_CLOEXEC), 0);
        EXPECT_EQ(::pipe2(answers, O_CLOEXEC), 0);
        commands_theirs.reset(commands[0]);
        answers_ours.reset(answers[1]);
        cdp = std::make_unique<CdpConnection>(UniqueFd(commands[1]), UniqueFd(answers[0]), max_event_bytes);
    }
    void send(const std::string &message) {
        std::string framed = message + '\0';
        for (size_t done = 0; done < framed.size();) {
            const ssize_t n = ::write(answers_ours.get(), framed.data() + done, framed.size() - done);
            ASSERT_GT(n, 0);
            done += static_cast<size_t>(n);
        }
    }
    // Waits (bounded: 30 s, for sanitized builds) until the reader has seen event number `seq`.
    void wait_for(uint64_t seq) {
        for (int i = 0; i < 6000 && cdp->mark() < seq; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ASSERT_EQ(cdp->mark(), seq);
    }
};

size_t buffered(const CdpConnection &cdp) { return cdp.events_since(0, [](const CdpEvent &) { return true; }).size(); }

}  // namespace

// With a 1 MiB bound (the product's is kMaxBufferedEventBytes): small messages keep this fast under
// sanitizers, the rule is the same.
constexpr size_t kTestBound = 1u << 20;

TEST(CdpConnection, BufferedEventsAreBoundedInBytes) {
    FakeBrowserPipes pipes(kTestBound);
    const std::string filler(64u << 10, 'x');
    for (int i = 1; i <= 100; ++i)
        pipes.send(R"({"method":"Page.big","params":{"n":)" + std::to_string(i) + R"(,"data":")" + filler + R"("}})");
    pipes.wait_for(100);
    const auto kept = pipes.cdp->events_since(0, [](const CdpEvent &) { return true; });
    ASSERT_FALSE(kept.empty());
    size_t bytes = 0;
    for (const auto &e : kept) bytes += e.bytes;
    EXPECT_LE(bytes, kTestBound);
    EXPECT_LT(kept.size(), 100u);
    EXPECT_EQ(kept.back().params.value("n", 0), 100) << "the newest events are the ones kept";
}

TEST(CdpConnection, BufferedEventsAreBoundedInCount) {
    FakeBrowserPipes pipes;
    const size_t total = kMaxBufferedEvents + 500;
    for (size_t i = 1; i <= total; ++i) pipes.send(R"({"method":"Page.small","params":{}})");
    pipes.wait_for(total);
    EXPECT_EQ(buffered(*pipes.cdp), kMaxBufferedEvents);
}

TEST(CdpConnection, OneEventAboveTheByteBoundIsStillSeen) {
    FakeBrowserPipes pipes(kTestBound);
    pipes.send(R"({"method":"Page.huge","params":{"data":")" + std::string(kTestBound + 10, 'y') + R"("}})");
    pipes.wait_for(1);
    EXPECT_EQ(buffered(*pipes.cdp), 1u);
}
