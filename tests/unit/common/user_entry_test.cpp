// common/user_entry: passwd look-ups that own their copy (getpwnam's buffer is the process's).
#include <gtest/gtest.h>

#include <actionhost/common/user_entry.hpp>

#include <atomic>
#include <thread>

using namespace actionhost;

TEST(UserEntry, LooksUsersUpByNameAndUid) {
    const auto root = common::user_by_name("root");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->uid, 0u);
    EXPECT_EQ(root->home, "/root");
    const auto by_uid = common::user_by_uid(0);
    ASSERT_TRUE(by_uid);
    EXPECT_EQ(by_uid->name, "root");
    EXPECT_FALSE(common::user_by_name("no-such-user-of-actionhost"));
}

// getpwnam/getpwuid share one buffer per process: two threads looking up different users may read each
// other's entries (the host's main thread and a plugin's init did). Each lookup here owns its copy. The
// plain build rarely sees a torn entry; under the tsan preset a shared buffer is reported as a race.
TEST(UserEntry, LookupsOnTwoThreadsEachSeeTheirOwnUser) {
    const auto nobody = common::user_by_uid(65534);
    if (!nobody) GTEST_SKIP() << "no user with uid 65534 on this machine";
    std::atomic<int> wrong{0};
    std::thread other([&] {
        for (int i = 0; i < 2000; ++i)
            if (const auto u = common::user_by_uid(65534); !u || u->name != nobody->name) ++wrong;
    });
    for (int i = 0; i < 2000; ++i)
        if (const auto u = common::user_by_name("root"); !u || u->uid != 0 || u->home != "/root") ++wrong;
    other.join();
    EXPECT_EQ(wrong.load(), 0);
}
