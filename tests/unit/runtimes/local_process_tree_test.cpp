// How a local host's tree is found and paused without a freezer (runtimes/local/process_tree.hpp): a
// shell whose children left its process group and session (as the bash plugin's shells leave the
// host's) is found whole, stopped whole and continued whole, and killed whole.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "process_tree.hpp"

using namespace actionhost::local_runtime;

extern char **environ;

namespace {

char state_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

// A shell with a child in a session of its own and one in its group, each with a child of its own.
pid_t start_tree() {
    const char *argv[] = {"/bin/sh", "-c", "setsid sh -c 'sleep 300 & sleep 300' & sh -c 'sleep 300 & sleep 300' & wait", nullptr};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, &attr, const_cast<char **>(argv), environ), 0);
    posix_spawnattr_destroy(&attr);
    return pid;
}

std::vector<ProcessIdentity> wait_for_tree(pid_t root, size_t size) {
    std::vector<ProcessIdentity> tree;
    for (int i = 0; i < 200 && tree.size() < size; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(10))) tree = process_tree(root);
    return tree;
}

bool all_in_state(const std::vector<ProcessIdentity> &tree, bool stopped) {
    for (int i = 0; i < 200; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
        bool all = true;
        for (const auto &p : tree) all = all && ((state_of(p.pid) == 'T') == stopped);
        if (all) return true;
    }
    return false;
}

}  // namespace

TEST(LocalProcessTree, TheWholeTreeIsFoundStoppedContinuedAndKilled) {
    const pid_t root = start_tree();
    ASSERT_GT(root, 0);
    const auto tree = wait_for_tree(root, 7);  // sh, two sh, four sleeps
    ASSERT_EQ(tree.size(), 7u);
    EXPECT_EQ(tree.front().pid, root);
    EXPECT_TRUE(process_tree(999'999'999).empty());

    StoppedTree stopped;
    ASSERT_TRUE(stopped.stop(root));
    EXPECT_FALSE(stopped.empty());
    EXPECT_TRUE(all_in_state(tree, true)) << "not every process stopped";
    stopped.resume();
    EXPECT_TRUE(stopped.empty());
    EXPECT_TRUE(all_in_state(tree, false)) << "not every process continued";

    kill_processes(tree);
    ::waitpid(root, nullptr, 0);
    for (int i = 0; i < 300; ++i) {
        bool any = false;
        for (const auto &p : tree) any = any || actionhost::runtime_support::is_running(p);
        if (!any) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (const auto &p : tree) EXPECT_FALSE(actionhost::runtime_support::is_running(p)) << p.pid;
}
