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
