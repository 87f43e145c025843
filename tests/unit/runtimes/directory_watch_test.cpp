// Waiting for a directory entry (runtime_support directory_watch.hpp): woken by the entry, never missing
// one made between the look and the wait, every waiter woken, and one inotify instance for the process
// however many watches come and go (closing an instance costs the kernel 15–25 ms).
#include <gtest/gtest.h>
#include <unistd.h>

#include <actionhost/runtime_support/directory_watch.hpp>
#include <actionhost/runtime_support/remove_tree.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

using namespace actionhost::runtime_support;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

class DirectoryWatchTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/ah-watch-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { remove_tree(dir_); }

    void make(const std::string &name) const { std::ofstream(dir_ + "/" + name) << "x\n"; }

    std::string dir_;
};

// Descriptors of this process that are inotify instances.
int inotify_instances() {
    int n = 0;
    for (const auto &e : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        if (fs::read_symlink(e.path(), ec).string() == "anon_inode:inotify") ++n;
    }
    return n;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

TEST_F(DirectoryWatchTest, AnEntryMadeWhileWaitingEndsTheWait) {
    DirectoryWatch watch(dir_);
    ASSERT_TRUE(watch.active());
    const uint64_t seen = watch.generation();
    std::thread maker([this] {
        std::this_thread::sleep_for(milliseconds(100));
        make("port");
    });
    const auto t0 = Clock::now();
    watch.wait(seen, milliseconds(20'000));
    maker.join();
    EXPECT_NE(watch.generation(), seen);
    EXPECT_LT(seconds_since(t0), 10.0) << "the wait ran to its timeout: the entry did not wake it";
}

TEST_F(DirectoryWatchTest, AnEntryMadeBeforeTheWaitIsNotMissed) {
    DirectoryWatch watch(dir_);
    const uint64_t seen = watch.generation();
    make("port");  // after the look, before the wait: the race every poll loop has
    const auto t0 = Clock::now();
    watch.wait(seen, milliseconds(20'000));
    EXPECT_LT(seconds_since(t0), 10.0);
    EXPECT_NE(watch.generation(), seen);
}

TEST_F(DirectoryWatchTest, WithoutAnEntryTheWaitEndsAtItsTimeout) {
    DirectoryWatch watch(dir_);
    // Events of earlier tests' directories (their removal) may still be queued: let them pass first.
    for (int i = 0; i < 20; ++i) {
        const uint64_t before = watch.generation();
        watch.wait(before, milliseconds(30));
        if (watch.generation() == before) break;
    }
    const uint64_t seen = watch.generation();
    const auto t0 = Clock::now();
    watch.wait(seen, milliseconds(60));
    EXPECT_GE(seconds_since(t0), 0.055);
    EXPECT_EQ(watch.generation(), seen);
}

TEST_F(DirectoryWatchTest, EveryWaiterOfEveryThreadIsWoken) {
    // Four threads wait on two directories; one entry in each wakes all four (one of them reads the
    // events, the others must still see the new generation).
    fs::create_directory(dir_ + "/b");
    const std::vector<std::string> dirs = {dir_, dir_ + "/b", dir_, dir_ + "/b"};
    std::atomic<int> woken{0}, ready{0};
    std::vector<std::thread> waiters;
    for (const auto &d : dirs)
        waiters.emplace_back([&, d] {
            DirectoryWatch watch(d);
            const uint64_t seen = watch.generation();
            ++ready;
            const auto t0 = Clock::now();
            // An earlier entry of the other directory may end a wait: wait again until this one's.
            for (int i = 0; i < 10 && !fs::exists(d + "/entry") && seconds_since(t0) < 20; ++i) watch.wait(seen + i, milliseconds(20'000));
            if (fs::exists(d + "/entry") && seconds_since(t0) < 10) ++woken;
        });
    for (int i = 0; i < 1000 && ready < 4; ++i) std::this_thread::sleep_for(milliseconds(5));
    make("entry");
    std::ofstream(dir_ + "/b/entry") << "x\n";
    for (auto &t : waiters) t.join();
    EXPECT_EQ(woken.load(), 4);
}

TEST_F(DirectoryWatchTest, AWatchOfTheSameDirectoryOutlivesAnotherOne) {
    DirectoryWatch kept(dir_);
    { DirectoryWatch gone(dir_); }  // shares the kernel's watch: removing it must not remove kept's
    const uint64_t seen = kept.generation();
    std::thread maker([this] {
        std::this_thread::sleep_for(milliseconds(50));
        make("port");
    });
    const auto t0 = Clock::now();
    kept.wait(seen, milliseconds(20'000));
    maker.join();
    EXPECT_LT(seconds_since(t0), 10.0);
}

TEST_F(DirectoryWatchTest, OneInotifyInstanceServesEveryWatch) {
    { DirectoryWatch first(dir_); }
    const int before = inotify_instances();
    EXPECT_EQ(before, 1);
    for (int i = 0; i < 200; ++i) {
        const std::string d = dir_ + "/d" + std::to_string(i);
        fs::create_directory(d);
        DirectoryWatch watch(d);
        EXPECT_TRUE(watch.active());
    }
    EXPECT_EQ(inotify_instances(), before);
}

TEST_F(DirectoryWatchTest, AMissingDirectoryIsAPlainSleep) {
    DirectoryWatch watch(dir_ + "/missing");
    EXPECT_FALSE(watch.active());
    const auto t0 = Clock::now();
    watch.wait(watch.generation(), milliseconds(30));
    EXPECT_GE(seconds_since(t0), 0.025);
}
