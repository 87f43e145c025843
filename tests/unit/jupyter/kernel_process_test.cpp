// KernelProcess against a real child: what it writes to stdout and stderr is read as it comes (the
// last few KB kept for error messages), and the object's end stops the child and its reader at once.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "kernel/kernel_process.hpp"

namespace actionhost::jupyter {
namespace {

using std::chrono::steady_clock;

std::string tail_once(KernelProcess &k, const std::string &want, std::chrono::seconds within) {
    const auto deadline = steady_clock::now() + within;
    std::string tail = k.output_tail();
    while (tail.find(want) == std::string::npos && steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        tail = k.output_tail();
    }
    return tail;
}

TEST(KernelProcess, KeepsTheLastOutputOfBothStreamsAndStopsPromptly) {
    std::string note;
    // 20 000 lines (~190 KB) then a last word on stderr: only the newest 8 KB are kept.
    auto spawned = KernelProcess::spawn({{"/bin/sh", "-c", "seq 1 20000; echo last-words >&2; exec sleep 60"}, "/", "", {}}, note);
    ASSERT_TRUE(spawned) << spawned.error().message;
    std::unique_ptr<KernelProcess> k = std::move(spawned).value();
    const std::string tail = tail_once(*k, "last-words", std::chrono::seconds(20));
    EXPECT_NE(tail.find("19999\n20000\nlast-words\n"), std::string::npos) << tail.substr(0, 200);
    EXPECT_LE(tail.size(), 8192u);
    EXPECT_EQ(tail.find("\n1\n"), std::string::npos);
    EXPECT_TRUE(k->alive());

    const auto start = steady_clock::now();
    k.reset();  // SIGTERM to the group (sleep ends at once), then the reader
    EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace actionhost::jupyter
