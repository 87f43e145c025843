// Temporary directories owned by a lock (runtime_support owned_dir.hpp): alive while a holder lives,
// found abandoned the moment it dies, however it dies; waited for while its owner is ending.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/runtime_support/owned_dir.hpp>
#include <actionhost/runtime_support/remove_tree.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace actionhost::runtime_support;
namespace fs = std::filesystem;

namespace {

// A private TMPDIR for the test's directories.
class OwnedDirTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/ah-owned-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        root_ = tmpl;
        old_ = getenv("TMPDIR") ? getenv("TMPDIR") : "";
        setenv("TMPDIR", root_.c_str(), 1);
    }
    void TearDown() override {
        if (old_.empty()) unsetenv("TMPDIR");
        else setenv("TMPDIR", old_.c_str(), 1);
        remove_tree(root_);
    }
    // A child that holds `fd` (inherited across fork: the lock is shared with its copy) until killed,
    // and not `other` (closed in it), as ah-sandbox-init holds the owner lock and not the client's.
    static pid_t holder(int fd, int other = -1) {
        int ready[2];
        if (pipe(ready) != 0) return -1;
        const pid_t pid = fork();
        if (pid == 0) {
            (void)fd;
            if (other >= 0) close(other);
            (void)!write(ready[1], "r", 1);
            pause();
            _exit(0);
        }
        char byte;
        close(ready[1]);
        (void)!read(ready[0], &byte, 1);  // returns once the child has let go of `other`
        close(ready[0]);
        return pid;
    }
    std::string root_, old_;
};

}  // namespace

TEST_F(OwnedDirTest, AliveWhileAHolderLivesGoneWhenItIsKilled) {
    OwnedDir d = make_owned_temp_dir("ah-test-");
    EXPECT_EQ(fs::path(d.path).parent_path(), fs::path(root_));
    EXPECT_EQ(dir_owner(d.path), DirOwner::Alive);
    const pid_t child = holder(d.lock_fd);
    close(d.lock_fd);  // only the child holds it now
    EXPECT_EQ(dir_owner(d.path), DirOwner::Alive);
    EXPECT_EQ(sweep_abandoned_dirs("ah-test-", {}), 0u);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    EXPECT_EQ(dir_owner(d.path), DirOwner::Gone);
    std::vector<std::string> gone;
    EXPECT_EQ(sweep_abandoned_dirs("ah-test-", [&](const std::string &p) { gone.push_back(p); }), 1u);
    EXPECT_EQ(gone, std::vector<std::string>{d.path});
    EXPECT_FALSE(fs::exists(d.path));
}

TEST_F(OwnedDirTest, NoStagingDirectoryIsLeftAndAnUnlockedOneIsNeverTouched) {
    OwnedDir d = make_owned_temp_dir("ah-test-");
    size_t entries = 0;
    for (const auto &e : fs::directory_iterator(root_)) entries += e.path().filename().string()[0] == '.' ? 100 : 1;
    EXPECT_EQ(entries, 1u) << "a staging directory remained";
    // A directory of the same prefix without a lock (an earlier version's) is not ours to judge.
    fs::create_directories(root_ + "/ah-test-legacy/workspace");
    close(d.lock_fd);
    EXPECT_EQ(sweep_abandoned_dirs("ah-test-", {}), 1u);
    EXPECT_TRUE(fs::exists(root_ + "/ah-test-legacy/workspace"));
}

// The client died before releasing the directory while its owner still runs: the owner is ending, and
// the sweep waits for it rather than leaving the directory to the next one.
TEST_F(OwnedDirTest, ASweepWaitsForAnOwnerWhoseClientIsGone) {
    OwnedDir d = make_owned_temp_dir("ah-test-", true);
    const pid_t owner = holder(d.lock_fd, d.client_fd);
    close(d.lock_fd);
    close(d.client_fd);  // the client is gone, the directory never released
    std::thread ending([owner] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        kill(owner, SIGKILL);
    });
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(sweep_abandoned_dirs("ah-test-", {}), 1u);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
    ending.join();
    waitpid(owner, nullptr, 0);
    EXPECT_FALSE(fs::exists(d.path));
}

TEST_F(OwnedDirTest, AReleasedDirectoryLivesOnWithItsOwnerAlone) {
    OwnedDir d = make_owned_temp_dir("ah-test-", true);
    const pid_t owner = holder(d.lock_fd, d.client_fd);
    close(d.lock_fd);
    release_to_owner(d.path, d.client_fd);
    EXPECT_EQ(d.client_fd, -1);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(sweep_abandoned_dirs("ah-test-", {}), 0u);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1)) << "it waited for a kept owner";
    EXPECT_TRUE(fs::exists(d.path));
    kill(owner, SIGKILL);
    waitpid(owner, nullptr, 0);
    EXPECT_EQ(sweep_abandoned_dirs("ah-test-", {}), 1u);
}

// What a sandbox can leave in a workspace: unreadable and unwritable directories, links out of it.
TEST_F(OwnedDirTest, RemoveTreeTakesLockedDirectoriesAndFollowsNoLink) {
    const std::string outside = root_ + "/outside", tree = root_ + "/tree";
    fs::create_directories(outside);
    std::ofstream(outside + "/keep") << "x";
    fs::create_directories(tree + "/a/b");
    std::ofstream(tree + "/a/b/f") << "x";
    fs::create_directory_symlink(outside, tree + "/a/link");
    chmod((tree + "/a/b").c_str(), 0);
    chmod((tree + "/a").c_str(), 0500);
    EXPECT_TRUE(remove_tree(tree));
    EXPECT_FALSE(fs::exists(tree));
    EXPECT_TRUE(fs::exists(outside + "/keep"));
    EXPECT_TRUE(remove_tree(root_ + "/never-was"));
}
