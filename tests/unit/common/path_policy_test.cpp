// common::PathPolicy, the one confinement rule of the host's file actions and the editor, against a real
// directory tree with links planted in it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <actionhost/common/path_policy.hpp>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"

using actionhost::common::PathPolicy;
using actionhost::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string canonical(const std::string &p) { return fs::canonical(p).string(); }

}  // namespace

TEST(PathPolicy, NoRootsAllowsEveryPath) {
    const PathPolicy open("", "the test may access");
    EXPECT_FALSE(open.confined());
    EXPECT_TRUE(open.check("/etc/shadow"));
    EXPECT_TRUE(open.check("/no/such/path"));
    // Entries that are not absolute are no roots: a spec of only those confines nothing either.
    const PathPolicy relative_only("relative:also/relative:", "the test may access");
    EXPECT_FALSE(relative_only.confined());
}

TEST(PathPolicy, RootsAreResolvedOnceAndTrailingSlashesDropped) {
    TempDir base("ahpolicy");
    fs::create_directories(base / "real/work");
    fs::create_directory_symlink(base / "real", base / "alias");
    const PathPolicy p(base / "alias/work//" + ":relative:" + base / "other", "the test may access");
    ASSERT_EQ(p.roots().size(), 2u);
    EXPECT_EQ(p.roots()[0], canonical(base / "real/work"));
    EXPECT_EQ(p.roots()[1], base / "other");  // not there yet: as written
}

TEST(PathPolicy, PathsUnderARootPassAndOthersAreRefusedWithTheRoots) {
    TempDir base("ahpolicy");
    fs::create_directories(base / "work/sub");
    fs::create_directories(base / "outside");
    const std::string root = canonical(base / "work");
    const PathPolicy p(root, "the test may access", "TEST_ROOTS");
    EXPECT_TRUE(p.confined());
    EXPECT_TRUE(p.check(root));
    EXPECT_TRUE(p.check(root + "/sub"));
    EXPECT_TRUE(p.check(root + "/sub/new-file.txt"));  // a file about to be created
    EXPECT_TRUE(p.check(root + "/missing/dir/file"));
    const std::string outside = canonical(base / "outside") + "/f";
    auto r = p.check(outside);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message,
              "The path " + outside + " is outside the directories the test may access: " + root + " (TEST_ROOTS).");
    // A sibling whose name starts like the root is not under it.
    fs::create_directories(root + "-evil");
    EXPECT_FALSE(p.check(root + "-evil/f"));
}

TEST(PathPolicy, ALinkOrADotDotThatLeadsOutIsRefusedNamingWhereItLeads) {
    TempDir base("ahpolicy");
    fs::create_directories(base / "work");
    fs::create_directories(base / "secret");
    std::ofstream(base / "secret/key") << "k";
    const std::string root = canonical(base / "work");
    fs::create_directory_symlink(canonical(base / "secret"), root + "/dir-link");
    fs::create_symlink(canonical(base / "secret/key"), root + "/file-link");
    fs::create_symlink("../secret/key", root + "/relative-link");
    const PathPolicy p(root, "the test may access");
    const std::string secret = canonical(base / "secret");
    for (const std::string &path : {root + "/dir-link/key", root + "/dir-link/new-file", root + "/file-link",
                                    root + "/relative-link", root + "/../secret/key", root + "/sub/../../secret/key"}) {
        auto r = p.check(path);
        ASSERT_FALSE(r) << path;
        EXPECT_NE(r.error().message.find(" resolves to " + secret), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find("which is outside the directories the test may access: " + root + "."),
                  std::string::npos)
            << r.error().message;
    }
    // A link that stays inside is followed.
    fs::create_directories(root + "/a");
    fs::create_directory_symlink(root + "/a", root + "/inside-link");
    EXPECT_TRUE(p.check(root + "/inside-link/file"));
}

TEST(PathPolicy, TheRootSlashAllowsEverything) {
    const PathPolicy p("/", "the test may access");
    EXPECT_TRUE(p.confined());
    EXPECT_TRUE(p.check("/etc/passwd"));
    EXPECT_TRUE(p.check("/no/such/file"));
}
