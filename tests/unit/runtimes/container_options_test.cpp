// The Engine API fields of `[sandbox]` GPU and network options, as docker-py builds them for OpenHands.
#include <gtest/gtest.h>

#include "container_options.hpp"

using nlohmann::json;

TEST(GpuDeviceRequests, AllGpusOrTheListedOnesWithTheGpuCapability) {
    EXPECT_EQ(docker::gpu_device_requests(false, "0"), std::nullopt);
    auto all = docker::gpu_device_requests(true, std::nullopt);
    ASSERT_TRUE(all);
    EXPECT_EQ(*all, json::parse(R"([{"Driver":"","Count":-1,"Capabilities":[["gpu"]],"Options":{}}])"));
    auto some = docker::gpu_device_requests(true, "0,2");
    ASSERT_TRUE(some);
    EXPECT_EQ(*some, json::parse(R"([{"Driver":"","DeviceIDs":["0","2"],"Capabilities":[["gpu"]],"Options":{}}])"));
}

TEST(AdditionalNetworks, AListOfNamesElseARefusal) {
    EXPECT_TRUE(docker::network_names(std::nullopt).empty());
    EXPECT_TRUE(docker::network_names("[]").empty());
    EXPECT_EQ(docker::network_names(R"(["a","b-2"])"), (std::vector<std::string>{"a", "b-2"}));
    EXPECT_THROW(docker::network_names(R"("a")"), std::invalid_argument);
    EXPECT_THROW(docker::network_names(R"(["a", 3])"), std::invalid_argument);
    EXPECT_THROW(docker::network_names(R"([""])"), std::invalid_argument);
}

// Our network keys on Docker: what it can have is mapped, what it cannot is refused with the reason,
// nothing silently ignored.
TEST(DockerNetwork, HostAndBridgeMappedNoneAndEgressListsRefused) {
    EXPECT_FALSE(docker::docker_network(std::nullopt, "[]", "[]", false).host);  // unset: the bridge, no note
    EXPECT_TRUE(docker::docker_network(std::nullopt, "[]", "[]", false).note.empty());
    EXPECT_TRUE(docker::docker_network(std::nullopt, std::nullopt, std::nullopt, true).host);  // use_host_network
    EXPECT_TRUE(docker::docker_network("host", "[]", "[]", false).host);
    EXPECT_TRUE(docker::docker_network("true", "[]", "[]", false).host);
    const auto internet = docker::docker_network("internet", "[]", "[]", false);
    EXPECT_FALSE(internet.host);
    EXPECT_NE(internet.note.find("cannot refuse"), std::string::npos) << internet.note;
    for (const char *none : {"none", "false"}) {
        try {
            docker::docker_network(none, "[]", "[]", false);
            ADD_FAILURE() << none << " was accepted";
        } catch (const std::invalid_argument &e) {
            EXPECT_NE(std::string(e.what()).find("-r sandbox"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(docker::docker_network("internet", R"(["198.51.100.0/24"])", "[]", false), std::invalid_argument);
    EXPECT_THROW(docker::docker_network("internet", "[]", R"(["10.0.0.0/8"])", false), std::invalid_argument);
    EXPECT_THROW(docker::docker_network("everywhere", "[]", "[]", false), std::invalid_argument);
}
