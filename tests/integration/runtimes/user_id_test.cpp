// `sandbox.user_id` (SANDBOX_USER_ID) and `run_as_openhands` end to end: the uid commands run as in the
// sandbox backend (user namespace: the user is the workspace's owner, every other id unprivileged) and in
// the local backend started by root (the host sets up the user on this machine, as OpenHands' runtime
// does in its container). The docker backend's are in docker_openhands_keys_test.cpp.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "runtime_harness.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using nlohmann::json;

namespace {

std::string content(const json &obs) { return obs.value("content", ""); }

uid_t outside_owner(const std::string &path) {
    struct stat st{};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_uid;
}

}  // namespace

TEST(SandboxUser, UserIdIsTheUidOfCommandsNamedOpenhandsOwningTheWorkspace) {
    auto s = start_runtime("sandbox", [](Config &c) {
        c.set("core.run_as_openhands", true);
        c.apply_env({{"SANDBOX_USER_ID", "1234"}});
    });
    Runtime &rt = *s->runtime;
    EXPECT_EQ(content(run(rt, "id -u")), "1234");
    EXPECT_EQ(content(run(rt, "id -un")), "openhands");
    EXPECT_EQ(content(run(rt, "stat -c %u " + s->workspace_inside)), "1234");
    // A file the user writes belongs, on the machine, to the workspace's owner there: this test's user,
    // whose workspace stays theirs (a root caller's through an idmapped mount, nothing chowned).
    EXPECT_EQ(exit_code(run(rt, "touch " + s->workspace_inside + "/mine")), 0);
    const uid_t owner = outside_owner(s->workspace->path());
    EXPECT_EQ(outside_owner(s->workspace->path() + "/mine"), owner);
    EXPECT_EQ(owner, ::geteuid());
}

TEST(SandboxUser, DefaultIsOpenhands1000AndRunAsOpenhandsFalseIsRoot) {
    {
        auto s = start_runtime("sandbox", [](Config &c) { c.set("core.run_as_openhands", true); });
        EXPECT_EQ(content(run(*s->runtime, "id -u; id -un")), "1000\nopenhands");
    }
    {
        auto s = start_runtime("sandbox", [](Config &c) {
            c.set("core.run_as_openhands", false);
            c.set("sandbox.user_id", 1234);  // for openhands only: root stays root
        });
        EXPECT_EQ(content(run(*s->runtime, "id -u; id -un")), "0\nroot");
    }
}

TEST(SandboxUser, AUserIdOutsideTheSandboxRangeIsRefused) {
    bool refused = false;
    try {
        start_runtime("sandbox", [](Config &c) {
            c.set("core.run_as_openhands", true);
            c.set("sandbox.user_id", 70000);
        });
    } catch (const std::exception &e) {
        refused = std::string(e.what()).find("0..65535") != std::string::npos;
    }
    EXPECT_TRUE(refused);
}

// Root running the local backend with user_id set: the host creates the user on this machine (useradd,
// as OpenHands' runtime does) and the commands run as it. A name and a uid of the test's own, removed
// again after.
TEST(LocalUser, AsRootUserIdIsSetUpAndTheUidOfCommands) {
    if (::getuid() != 0) GTEST_SKIP() << "needs root (the host creates a user on this machine)";
    const std::string name = "ahuid" + std::to_string(::getpid());
    uid_t uid = 1234;
    while (::getpwuid(uid) != nullptr && uid < 1234 + 1000) ++uid;
    ASSERT_EQ(::getpwuid(uid), nullptr) << "no free uid";
    struct RemoveUser {
        std::string name;
        ~RemoveUser() { actionhost::testing::run_process({"/usr/sbin/userdel", "-r", name}, 30); }
    } remove_user{name};
    setenv("RUNTIME_USERNAME", name.c_str(), 1);  // read by the client when it is created
    std::unique_ptr<StartedRuntime> s;
    try {
        s = start_runtime("local", [&](Config &c) {
            c.set("core.run_as_openhands", true);
            c.set("sandbox.user_id", static_cast<int>(uid));
        });
    } catch (...) {
        unsetenv("RUNTIME_USERNAME");
        throw;
    }
    unsetenv("RUNTIME_USERNAME");
    EXPECT_EQ(content(run(*s->runtime, "id -u; id -un")), std::to_string(uid) + "\n" + name);
    EXPECT_EQ(exit_code(run(*s->runtime, "touch " + s->workspace_inside + "/mine")), 0);
    EXPECT_EQ(outside_owner(s->workspace_inside + "/mine"), uid);
}
