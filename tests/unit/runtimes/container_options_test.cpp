// The Engine API fields of `[sandbox]` GPU and network options, as docker-py builds them for OpenHands.
#include <gtest/gtest.h>

#include <tuple>

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
TEST(DockerNetwork, HostBridgeAndInternalNetworkMapped) {
    using docker::DockerNetworkKind;
    const auto unset = docker::docker_network(std::nullopt, "[]", "[]", "[]", false);
    EXPECT_EQ(unset.kind, DockerNetworkKind::Bridge);  // unset: the bridge, no note
    EXPECT_TRUE(unset.note.empty());
    EXPECT_EQ(docker::docker_network(std::nullopt, std::nullopt, std::nullopt, std::nullopt, true).kind, DockerNetworkKind::Host);
    EXPECT_EQ(docker::docker_network("host", "[]", "[]", "[]", false).kind, DockerNetworkKind::Host);
    EXPECT_EQ(docker::docker_network("true", "[]", "[]", "[]", false).kind, DockerNetworkKind::Host);
    EXPECT_EQ(docker::docker_network("host", "[]", "[]", "[]", true).kind, DockerNetworkKind::Host);  // the same thing twice
    const auto internet = docker::docker_network("internet", "[]", "[]", "[]", false);
    EXPECT_EQ(internet.kind, DockerNetworkKind::Bridge);
    EXPECT_NE(internet.note.find("cannot refuse"), std::string::npos) << internet.note;
    for (const char *none : {"none", "false"}) {
        const auto n = docker::docker_network(none, "[]", "[]", "[]", false);
        EXPECT_EQ(n.kind, DockerNetworkKind::Internal) << none;
        EXPECT_NE(n.note.find(docker::kInternalNetwork), std::string::npos) << n.note;
        EXPECT_NE(n.note.find("machine's own addresses stay reachable"), std::string::npos) << n.note;
    }
    const auto dns = docker::docker_network("internet", "[]", "[]", R"(["192.0.2.53","2001:db8::53"])", false);
    EXPECT_EQ(dns.dns, (std::vector<std::string>{"192.0.2.53", "2001:db8::53"}));  // HostConfig.Dns
    EXPECT_EQ(docker::docker_network(std::nullopt, "[]", "[]", R"(["192.0.2.53"])", false).dns.size(), 1u);
}

namespace {
std::string network_refusal(const std::optional<std::string> &mode, const std::string &allow, const std::string &deny,
                            const std::string &dns, bool use_host_network) {
    try {
        docker::docker_network(mode, allow, deny, dns, use_host_network);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(DockerNetwork, EgressListsAndContradictionsRefusedWithTheReason) {
    for (const auto &[allow, deny, key] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {R"(["198.51.100.0/24"])", "[]", "sandbox.allow_out"}, {"[]", R"(["10.0.0.0/8"])", "sandbox.deny_out"},
             {R"(["pypi.org"])", "[]", "sandbox.allow_out"}}) {
        const std::string e = network_refusal("internet", allow, deny, "[]", false);
        EXPECT_NE(e.find(key + " is not enforced by the docker runtime"), std::string::npos) << e;
        EXPECT_NE(e.find("no egress filter"), std::string::npos) << e;
        EXPECT_NE(e.find("-r sandbox"), std::string::npos) << e;
    }
    EXPECT_NE(network_refusal("none", "[]", "[]", "[]", true).find("use_host_network = true contradicts sandbox.network = \"none\""),
              std::string::npos);
    EXPECT_NE(network_refusal("internet", "[]", "[]", "[]", true).find("contradicts"), std::string::npos);
    EXPECT_NE(network_refusal("none", "[]", "[]", R"(["192.0.2.53"])", false).find("sandbox.dns needs sandbox.network = \"internet\""),
              std::string::npos);
    EXPECT_NE(network_refusal("host", "[]", "[]", R"(["192.0.2.53"])", false).find("sandbox.dns needs"), std::string::npos);
    EXPECT_NE(network_refusal("internet", "[]", "[]", R"(["192.0.2.0/24"])", false).find("is not an address"), std::string::npos);
    EXPECT_NE(network_refusal("everywhere", "[]", "[]", "[]", false).find("must be \"none\", \"internet\" or \"host\""), std::string::npos);
}

// "none" needs the client on the engine's machine (it reaches the container's address on the internal
// network) and no way out beside it; the internal network must be ours as we make it.
TEST(DockerNetwork, InternalNetworkOnlyWhereTheClientCanReachIt) {
    EXPECT_EQ(docker::internal_network_refusal("", "", false, "http://localhost", "127.0.0.1"), "");
    EXPECT_EQ(docker::internal_network_refusal("unix:///run/docker.sock", "", false, "http://localhost", "127.0.0.1"), "");
    EXPECT_EQ(docker::internal_network_refusal("/run/docker.sock", "", false, "", ""), "");
    EXPECT_NE(docker::internal_network_refusal("tcp://192.0.2.7:2375", "", false, "http://localhost", "127.0.0.1").find("DOCKER_HOST is tcp://"),
              std::string::npos);
    EXPECT_NE(docker::internal_network_refusal("", "192.0.2.7", false, "http://localhost", "127.0.0.1").find("DOCKER_HOST_ADDR"), std::string::npos);
    EXPECT_NE(docker::internal_network_refusal("", "", true, "http://localhost", "127.0.0.1").find("sandbox.additional_networks"), std::string::npos);
    EXPECT_NE(docker::internal_network_refusal("", "", false, "http://192.0.2.7", "127.0.0.1").find("sandbox.local_runtime_url"), std::string::npos);
    EXPECT_NE(docker::internal_network_refusal("", "", false, "http://localhost", "0.0.0.0").find("sandbox.runtime_binding_address"),
              std::string::npos);

    const auto request = docker::internal_network_request();
    EXPECT_EQ(request["Name"], docker::kInternalNetwork);
    EXPECT_EQ(request["Internal"], true);
    EXPECT_EQ(request["Options"]["com.docker.network.bridge.enable_icc"], "false");
    // As the engine answers GET /networks/{name} for it.
    nlohmann::json ours = {{"Name", docker::kInternalNetwork}, {"Internal", true}, {"Labels", request["Labels"]}, {"Options", request["Options"]}};
    EXPECT_EQ(docker::internal_network_problem(ours), "");
    auto theirs = ours;
    theirs["Labels"] = nlohmann::json::object();
    EXPECT_NE(docker::internal_network_problem(theirs).find("did not make"), std::string::npos);
    auto open = ours;
    open["Internal"] = false;
    EXPECT_NE(docker::internal_network_problem(open).find("not internal"), std::string::npos);
    auto icc = ours;
    icc["Options"] = nlohmann::json::object();
    EXPECT_NE(docker::internal_network_problem(icc).find("enable_icc"), std::string::npos);
}
