// Where ah-docker-keeper counts a container's connections (runtimes/docker/container_netns.hpp), on a
// test-made /proc: the container's own pid gives its net directory; an engine over TCP, a pid that is
// another process here (an engine in another pid namespace) and an unreadable namespace are refused
// with a sentence naming sandbox.idle_timeout.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "container_netns.hpp"
#include "support/temp_dir.hpp"

using docker::container_net_dir;
using nlohmann::json;

namespace {

const std::string kId = "3f2a9c0d1e4b5a6978808182838485868788898a8b8c8d8e8f909192939495aa";

json inspect(long pid) { return json{{"Id", kId}, {"State", {{"Running", pid > 0}, {"Pid", pid}}}}; }

void refused(const std::function<void()> &f, const std::string &words) {
    try {
        f();
        ADD_FAILURE() << "not refused";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("sandbox.idle_timeout"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(DockerContainerNetns, TheContainersOwnPidIsReadAndOthersAreRefused) {
    actionhost::testing::TempDir proc("ah-proc");
    std::filesystem::create_directories(proc / "100/net");
    std::ofstream(proc / "100/cgroup") << "12:freezer:/docker/" << kId << "\n0::/docker/" << kId << "\n";
    std::ofstream(proc / "100/net/tcp") << "  sl  local_address rem_address   st\n";
    std::filesystem::create_directories(proc / "200/net");
    std::ofstream(proc / "200/cgroup") << "0::/user.slice\n";  // another process with that pid here
    std::ofstream(proc / "200/net/tcp") << "  sl  local_address rem_address   st\n";
    std::filesystem::create_directories(proc / "300");
    std::ofstream(proc / "300/cgroup") << "0::/system.slice/docker-" << kId << ".scope\n";  // no net/tcp to read

    EXPECT_EQ(container_net_dir(inspect(100), true, proc.path()), proc / "100/net");
    refused([&] { container_net_dir(inspect(100), false, proc.path()); }, "over TCP");
    refused([&] { container_net_dir(inspect(200), true, proc.path()); }, "another pid namespace");
    refused([&] { container_net_dir(inspect(300), true, proc.path()); }, "cannot");
    refused([&] { container_net_dir(inspect(0), true, proc.path()); }, "not running");
}
