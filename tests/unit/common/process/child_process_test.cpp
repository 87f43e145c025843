// A started ChildProcess against real processes: waiting with a timeout, and stopping reaching
// everything the child started (grandchildren in its group, background jobs in groups of their own).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/process_state.hpp>

#include "process_test_util.hpp"

using namespace actionhost::common;
using actionhost::testing::read_line;
using Clock = std::chrono::steady_clock;

namespace {

std::unique_ptr<ChildProcess> start(std::vector<std::string> argv, bool new_session = true) {
    SpawnSpec s;
    s.argv = std::move(argv);
    s.use_pty = false;
    s.new_session = new_session;
    auto child = ChildProcess::spawn(s);
    EXPECT_TRUE(child) << child.error().message;
    return child ? std::move(child).value() : nullptr;
}

// Bounded: true once `pid` no longer runs (a zombie waiting for its new parent counts as ended).
bool ends_within(pid_t pid, std::chrono::milliseconds bound) {
    const auto deadline = Clock::now() + bound;
    while (process_is_live(pid)) {
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

}  // namespace

TEST(ChildProcessWait, WaitReturnsNothingWhenTheTimeRunsOutThenTheSignalThatEndedIt) {
    auto child = start({"/bin/sleep", "30"});
    ASSERT_TRUE(child);
    const auto asked = Clock::now();
    EXPECT_FALSE(child->wait(std::chrono::milliseconds(150)));
    const auto waited = Clock::now() - asked;
    EXPECT_GE(waited, std::chrono::milliseconds(150));
    EXPECT_LT(waited, std::chrono::milliseconds(2000));
    EXPECT_TRUE(child->running());
    child->signal(SIGKILL);
    const auto status = child->wait(std::chrono::seconds(10));
    ASSERT_TRUE(status);
    EXPECT_EQ(status->shell_code(), 128 + SIGKILL);
    EXPECT_EQ(status->describe(), "was killed by signal 9 (Killed)");
    EXPECT_FALSE(child->running());
    int code = 0;
    EXPECT_TRUE(child->try_reap(&code));
    EXPECT_EQ(code, 137);
}

TEST(ChildProcessWait, WaitWakesWhenTheChildEndsNotAtTheTimeout) {
    auto child = start({"/bin/sh", "-c", "sleep 0.2"});
    ASSERT_TRUE(child);
    const auto asked = Clock::now();
    const auto status = child->wait(std::chrono::seconds(20));
    ASSERT_TRUE(status);
    EXPECT_EQ(status->shell_code(), 0);
    EXPECT_LT(Clock::now() - asked, std::chrono::seconds(5));
}

// A grandchild that ignores SIGTERM (as the shell above it does): the SIGKILL after the grace reaches it.
TEST(ChildProcessStop, TerminateReachesGrandchildrenInTheGroup) {
    for (bool session : {true, false}) {
        auto child = start({"/bin/sh", "-c", "trap '' TERM; sleep 300 & echo $!; wait"}, session);
        ASSERT_TRUE(child);
        const pid_t grandchild = std::stoi(read_line(child->output_fd()));
        ASSERT_TRUE(process_is_live(grandchild));
        const auto asked = Clock::now();
        child->terminate(std::chrono::milliseconds(200));
        EXPECT_LT(Clock::now() - asked, std::chrono::seconds(5));
        EXPECT_TRUE(child->wait(std::chrono::milliseconds(0))) << "terminate reaps the child";
        EXPECT_TRUE(ends_within(grandchild, std::chrono::seconds(5))) << "session " << session;
    }
}

// bash with job control puts a background job in a process group of its own: kill_session finds it.
TEST(ChildProcessStop, KillSessionReachesJobsInOtherGroupsOfTheSession) {
    auto child = start({"/bin/bash", "-c", "set -m; sleep 300 & echo $!; wait"});
    ASSERT_TRUE(child);
    const pid_t job = std::stoi(read_line(child->output_fd()));
    ASSERT_TRUE(process_is_live(job));
    ASSERT_NE(::getpgid(job), child->pid()) << "the job has a group of its own";
    child->kill_session();
    EXPECT_TRUE(ends_within(job, std::chrono::seconds(5)));
}

TEST(ChildProcessStop, TheDestructorLeavesNoProcessOfTheChildBehind) {
    pid_t grandchild = 0;
    {
        auto child = start({"/bin/sh", "-c", "sleep 300 & echo $!; wait"});
        ASSERT_TRUE(child);
        grandchild = std::stoi(read_line(child->output_fd()));
    }
    EXPECT_TRUE(ends_within(grandchild, std::chrono::seconds(5)));
}

TEST(ChildProcessRelease, AReleasedChildIsTheCallersToStopAndReap) {
    pid_t pid = 0;
    {
        auto child = start({"/bin/sleep", "30"});
        ASSERT_TRUE(child);
        pid = child->release();
    }
    EXPECT_TRUE(process_is_live(pid));
    ::kill(pid, SIGKILL);
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status));
}
