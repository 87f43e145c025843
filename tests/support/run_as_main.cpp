// A GoogleTest main for tests whose promise must hold whoever runs them (tests/integration/security).
// With AH_TEST_RUN_AS=<uid> in the environment and the process root, it becomes that uid before any
// test runs: the uid's own primary gid (from the password database, else the same number), no
// supplementary groups, no capabilities, a private HOME. ctest registers such a binary twice, once as
// is (root in CI) and once with AH_TEST_RUN_AS=65534 (nobody), so one source proves both cases.
#include <gtest/gtest.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

[[noreturn]] void refuse(const std::string &why) {
    std::fprintf(stderr, "run_as_main: %s\n", why.c_str());
    std::exit(2);
}

// Becomes `uid` for good (real, effective and saved ids); exits the process with a reason if it cannot.
void become(uid_t uid) {
    if (geteuid() == uid) return;
    if (geteuid() != 0) refuse("AH_TEST_RUN_AS=" + std::to_string(uid) + " needs the test to start as root");
    const passwd *pw = getpwuid(uid);
    const gid_t gid = pw != nullptr ? pw->pw_gid : static_cast<gid_t>(uid);
    if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
        refuse(std::string("cannot become uid ") + std::to_string(uid) + ": " + std::strerror(errno));
    if (setresuid(0, 0, 0) == 0) refuse("still able to become root after dropping privileges");
    // Children that check their parent's dumpability (gdb attach in tests) behave as for a normal user.
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    char home[] = "/tmp/ah-run-as-home-XXXXXX";
    if (mkdtemp(home) == nullptr) refuse(std::string("cannot make a home directory: ") + std::strerror(errno));
    setenv("HOME", home, 1);
    if (pw != nullptr) setenv("USER", pw->pw_name, 1);
    setenv("TMPDIR", "/tmp", 1);
    // The build tree must be usable by this user: say so at once rather than in every test.
    if (access(AH_BUILD_DIR "/bin/actionhost", X_OK) != 0)
        refuse(std::string("uid ") + std::to_string(uid) + " cannot run " AH_BUILD_DIR "/bin/actionhost: " +
               std::strerror(errno) + " (the checkout must be readable by other users)");
}

}  // namespace

int main(int argc, char **argv) {
    testing::InitGoogleTest(&argc, argv);
    if (const char *who = std::getenv("AH_TEST_RUN_AS"); who != nullptr && *who != '\0') {
        char *end = nullptr;
        const unsigned long uid = std::strtoul(who, &end, 10);
        if (end == who || *end != '\0') refuse(std::string("AH_TEST_RUN_AS is not a uid: ") + who);
        become(static_cast<uid_t>(uid));
    }
    return RUN_ALL_TESTS();
}
