// OpenHands' [core]/[sandbox] keys in the docker backend, each shown by its effect on a real container
// (a Docker engine started here when none runs, the busybox image imported by the harness): the user of
// commands (sandbox.user_id, run_as_openhands), the machine-side workspace source (workspace_mount_path /
// WORKSPACE_MOUNT_PATH), additional_networks joined before the start, and GPUs as DeviceRequests.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/client/errors.hpp>
#include <filesystem>

#include "runtime_harness.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using actionhost::testing::read_file;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using nlohmann::json;

namespace {

std::string content(const json &obs) { return obs.value("content", ""); }

json inspect(Runtime &rt) {
    auto r = engine_request("GET", "/containers/openhands-runtime-" + rt.session_id() + "/json");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false);
}

}  // namespace

TEST(DockerOpenHandsKeys, UserIdIsTheUidOfCommandsAndRunAsOpenhandsFalseIsRoot) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    {
        auto s = start_runtime("docker", [](Config &c) {
            c.set("core.run_as_openhands", true);
            c.set("sandbox.user_id", 1234);
        });
        EXPECT_EQ(content(run(*s->runtime, "id -u")), "1234");
        EXPECT_EQ(content(run(*s->runtime, "id -un")), "openhands");
        // The workspace is the user's, as OpenHands' runtime chowns it: a new file there is the user's.
        EXPECT_EQ(exit_code(run(*s->runtime, "touch " + s->workspace_inside + "/mine")), 0);
        struct stat st{};
        ASSERT_EQ(::stat((s->workspace->path() + "/mine").c_str(), &st), 0);
        EXPECT_EQ(st.st_uid, 1234u);
    }
    {
        auto s = start_runtime("docker", [](Config &c) {
            c.set("core.run_as_openhands", false);
            c.set("sandbox.user_id", 1234);
        });
        EXPECT_EQ(content(run(*s->runtime, "id -u")), "0");
    }
}

// WORKSPACE_MOUNT_PATH names the directory as the engine's machine sees it (OpenHands running in a
// container itself): it, not workspace_base, is mounted at workspace_mount_path_in_sandbox.
TEST(DockerOpenHandsKeys, WorkspaceMountPathIsTheMountSource) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    TempDir machine_side("ahrt-mountsrc");
    write_file(machine_side / "seen.txt", "from the mount path");
    auto s = start_runtime("docker", [&](Config &c) { c.apply_env({{"WORKSPACE_MOUNT_PATH", machine_side.path()}}); });
    EXPECT_EQ(content(run(*s->runtime, "cat /workspace/seen.txt")), "from the mount path");
    EXPECT_EQ(exit_code(run(*s->runtime, "echo back > /workspace/written.txt")), 0);
    EXPECT_EQ(read_file(machine_side / "written.txt"), "back\n");
    EXPECT_FALSE(std::filesystem::exists(s->workspace->path() + "/written.txt"));
    json c = inspect(*s->runtime);
    EXPECT_NE(c["HostConfig"]["Binds"].dump().find(machine_side.path() + ":/workspace:rw"), std::string::npos) << c["HostConfig"]["Binds"];
}

TEST(DockerOpenHandsKeys, AdditionalNetworksAreJoinedBeforeTheStart) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const std::string prefix = "ahnet-" + std::to_string(::getpid()) + "-";
    const std::vector<std::string> names = {prefix + "a", prefix + "b"};
    for (const auto &n : names) {
        auto made = engine_request("POST", "/networks/create", json{{"Name", n}, {"Driver", "bridge"}}.dump());
        ASSERT_EQ(made.status, 201) << made.body;
    }
    {
        auto s = start_runtime("docker", [&](Config &c) { c.set("sandbox.additional_networks", json(names)); });
        json c = inspect(*s->runtime);
        for (const auto &n : names) EXPECT_TRUE(c["NetworkSettings"]["Networks"].contains(n)) << c["NetworkSettings"]["Networks"];
        // Joined before the start: the host saw an interface per network from its first moment.
        std::string links = content(run(*s->runtime, "ls /sys/class/net | grep -c '^eth'"));
        EXPECT_EQ(links, "3") << content(run(*s->runtime, "ls /sys/class/net"));
    }
    {
        // A network that does not exist fails the start with the engine's reason, leaving no container.
        bool refused = false;
        try {
            start_runtime("docker", [&](Config &c) { c.set("sandbox.additional_networks", json({prefix + "missing"})); });
        } catch (const RuntimeError &e) {
            refused = std::string(e.what()).find(prefix + "missing") != std::string::npos;
        }
        EXPECT_TRUE(refused);
    }
    for (const auto &n : names) engine_request("DELETE", "/networks/" + n);
}

// enable_gpu / cuda_visible_devices become HostConfig.DeviceRequests. This machine has no GPU runtime,
// so the engine refuses the start, naming the gpu capability the request asked for: the proof that the
// request reached it. (The exact request body is checked in container_options_test.)
TEST(DockerOpenHandsKeys, EnableGpuSendsADeviceRequestTheEngineActsOn) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    std::string why;
    std::unique_ptr<StartedRuntime> s;
    try {
        s = start_runtime("docker", [](Config &c) {
            c.set("sandbox.enable_gpu", true);
            c.set("sandbox.cuda_visible_devices", "0");
        });
    } catch (const RuntimeError &e) {
        why = e.what();
    }
    if (s) {  // an engine with a GPU runtime: the container has the request
        EXPECT_EQ(inspect(*s->runtime)["HostConfig"]["DeviceRequests"][0]["DeviceIDs"], json({"0"}));
        return;
    }
    EXPECT_NE(why.find("[[gpu]]"), std::string::npos) << why;
}
