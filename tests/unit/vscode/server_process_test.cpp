// ServerProcess::alive() on a process whose main thread is a zombie while its other threads still run:
// the window after a SIGKILL in which waitpid cannot reap a multithreaded server yet. A token asked for
// in that window must restart the server, so alive() waits (bounded) for the group to go.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <actionhost/common/process_state.hpp>

#include "server_process.hpp"

using namespace actionhost::vscode;
using Clock = std::chrono::steady_clock;

namespace {

std::unique_ptr<ServerProcess> start_fixture(int lifetime_ms) {
    SpawnSpec spec;
    spec.argv = {AH_MAIN_THREAD_EXITS_FIRST, std::to_string(lifetime_ms)};
    spec.cwd = "/";
    auto p = ServerProcess::spawn(spec);
    EXPECT_TRUE(p) << p.error().message;
    return p ? std::move(p).value() : nullptr;
}

// Bounded wait until the fixture's main thread has exited (a zombie to /proc) while the process lives on.
bool wait_main_thread_zombie(pid_t pid) {
    for (int i = 0; i < 500; ++i) {
        if (!actionhost::common::process_is_live(pid)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

}  // namespace

TEST(ServerProcessAlive, AProcessWhoseLastThreadsAreEndingIsDead) {
    auto p = start_fixture(300);
    ASSERT_TRUE(p);
    ASSERT_TRUE(wait_main_thread_zombie(p->pid()));
    const auto asked = Clock::now();
    EXPECT_FALSE(p->alive()) << "the process ends 300 ms after it started";
    EXPECT_LT(Clock::now() - asked, std::chrono::milliseconds(1500));
    EXPECT_FALSE(p->alive());
}

TEST(ServerProcessAlive, AProcessRunningOnWithoutItsMainThreadIsAliveAfterTheBoundedWait) {
    auto p = start_fixture(6000);
    ASSERT_TRUE(p);
    ASSERT_TRUE(wait_main_thread_zombie(p->pid()));
    const auto asked = Clock::now();
    EXPECT_TRUE(p->alive());
    EXPECT_LT(Clock::now() - asked, std::chrono::milliseconds(3000));
    p->stop(std::chrono::milliseconds(200));
    EXPECT_FALSE(p->alive());
}
