// find_on_path: the first program of a name on a PATH, judged as the shell whose PATH it is would judge
// it: from its directory for relative entries, and, for a shell running as another user, by that user's
// permissions on the file and on every directory above it. Against real files and modes (run as root,
// as the host is when its shells switch user).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <actionhost/common/process/shell_identity.hpp>

#include "support/temp_dir.hpp"

namespace common = actionhost::common;

namespace {
void program(const std::string &path, mode_t mode) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << "#!/bin/sh\n";
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
}

common::ShellIdentity other_user(uid_t uid, gid_t gid, std::vector<gid_t> groups = {}) {
    common::ShellIdentity who;
    who.switch_user = true;
    who.uid = uid;
    who.gid = gid;
    who.groups = std::move(groups);
    return who;
}
}  // namespace

TEST(FindOnPath, RelativeEntriesAreFoundFromTheShellsDirectoryAndKeepTheirSpelling) {
    actionhost::testing::TempDir t("ahpath");
    program(t.path() + "/w/bin/python", 0755);
    program(t.path() + "/abs/python", 0755);
    EXPECT_EQ(common::find_on_path("python", "bin:" + t.path() + "/abs", {t.path() + "/w", nullptr}), "bin/python");
    EXPECT_EQ(common::find_on_path("python", "bin:" + t.path() + "/abs", {t.path(), nullptr}), t.path() + "/abs/python");
    EXPECT_EQ(common::find_on_path("python", ":" + t.path() + "/abs", {t.path() + "/w/bin", nullptr}), "./python");
    EXPECT_EQ(common::find_on_path("python", "", {t.path(), nullptr}), "");
    std::filesystem::create_directories(t.path() + "/d/python");  // a directory of that name is no program
    EXPECT_EQ(common::find_on_path("python", t.path() + "/d:" + t.path() + "/abs"), t.path() + "/abs/python");
}

TEST(FindOnPath, AnotherUserFindsOnlyWhatItMayRunAndReach) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: files of other owners and modes";
    actionhost::testing::TempDir t("ahpath");
    ASSERT_EQ(chmod(t.path().c_str(), 0755), 0);
    const std::string list = t.path() + "/private:" + t.path() + "/owner_only:" + t.path() + "/group:" + t.path() + "/open";
    program(t.path() + "/private/python", 0755);
    ASSERT_EQ(chmod((t.path() + "/private").c_str(), 0700), 0);  // root's directory: not to be looked into
    program(t.path() + "/owner_only/python", 0744);
    program(t.path() + "/group/python", 0750);
    ASSERT_EQ(chown((t.path() + "/group/python").c_str(), 0, 4242), 0);
    program(t.path() + "/open/python", 0755);
    const common::ShellIdentity nobody = other_user(65534, 65534);
    EXPECT_EQ(common::find_on_path("python", list, {"", &nobody}), t.path() + "/open/python");
    const common::ShellIdentity in_group = other_user(65534, 65534, {4242});
    EXPECT_EQ(common::find_on_path("python", list, {"", &in_group}), t.path() + "/group/python");
    const common::ShellIdentity owner = other_user(0, 0);  // root: any execute bit, any directory
    EXPECT_EQ(common::find_on_path("python", list, {"", &owner}), t.path() + "/private/python");
    ASSERT_EQ(chmod((t.path() + "/open/python").c_str(), 0644), 0);
    EXPECT_EQ(common::find_on_path("python", list, {"", &nobody}), "");
    // The directory above, too: a searchable directory inside an unsearchable one is out of reach.
    program(t.path() + "/closed/inner/python", 0755);
    ASSERT_EQ(chmod((t.path() + "/closed").c_str(), 0700), 0);
    EXPECT_EQ(common::find_on_path("python", t.path() + "/closed/inner", {"", &nobody}), "");
    EXPECT_EQ(common::find_on_path("python", t.path() + "/closed/inner", {"", nullptr}), t.path() + "/closed/inner/python");
}

// find_program: this process's PATH, absolute entries only (a program we run for ourselves is never taken
// from the current directory), the fallback when PATH is unset or has no absolute entry.
TEST(FindProgram, UsesThisProcesssPathSkipsRelativeEntriesAndFallsBack) {
    actionhost::testing::TempDir t;
    program(t.path() + "/bin/ah-find-me", 0755);
    program(t.path() + "/cwd/ah-find-me", 0755);
    program(t.path() + "/fallback/ah-find-me", 0755);
    const char *old = std::getenv("PATH");
    const std::string saved = old ? old : "";
    const std::string old_cwd = std::filesystem::current_path();
    std::filesystem::current_path(t.path() + "/cwd");
    ::setenv("PATH", (".::" + t.path() + "/bin").c_str(), 1);
    EXPECT_EQ(common::find_program("ah-find-me", t.path() + "/fallback"), t.path() + "/bin/ah-find-me");
    ::setenv("PATH", ".:", 1);  // nothing absolute: the fallback, never ./ah-find-me
    EXPECT_EQ(common::find_program("ah-find-me", t.path() + "/fallback"), t.path() + "/fallback/ah-find-me");
    ::unsetenv("PATH");
    EXPECT_EQ(common::find_program("ah-find-me", t.path() + "/fallback"), t.path() + "/fallback/ah-find-me");
    EXPECT_EQ(common::find_program("ah-find-me", "."), "");
    EXPECT_EQ(common::find_program("sh"), "/usr/bin/sh");  // the default fallback
    std::filesystem::current_path(old_cwd);
    if (old) ::setenv("PATH", saved.c_str(), 1);
}
