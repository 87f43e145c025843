// The network keys on the docker backend for real (runtimes/docker/container_options.hpp): "none" on
// Docker's internal network — the client still reaches the host, at the container's address there, while
// a test host beyond the machine (198.51.100.2 in a network namespace the test made) is out of reach,
// which the bridge ("internet") reaches; sandbox.dns as the container's resolver; and what Docker cannot
// have refused, with the key and the reason, before any container exists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/http_transport.hpp>

#include "network_test_host.hpp"
#include "runtime_harness.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using nlohmann::json;

namespace {

json inspect_container(const std::string &name) {
    const auto r = engine_request("GET", "/containers/" + name + "/json");
    return r.status == 200 ? json::parse(r.body) : json();
}

// Whether the sandbox opens a TCP connection to address:port within 3 s (busybox nc).
bool reaches(Runtime &rt, const std::string &address, int port) {
    return exit_code(run(rt, "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 " + address + " " + std::to_string(port) + " | grep -q test-host-page")) == 0;
}

// The message of a start that must be refused ("" when it started, which the caller reports).
std::string refused_start(const std::function<void(Config &)> &set) {
    try {
        auto s = start_runtime("docker", set);
        s->runtime->close();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(DockerNetwork, NoneIsAnInternalNetworkTheClientStillReaches) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    NetworkTestHost test_host;
    ASSERT_TRUE(test_host.ok()) << "could not make the test host (needs root and ip)";

    auto bridge = start_runtime("docker", [](Config &c) { c.set("sandbox.network", "internet"); });
    EXPECT_TRUE(reaches(*bridge->runtime, NetworkTestHost::kAddress, NetworkTestHost::kPort)) << "the bridge does not reach the test host";
    bridge->runtime->close();

    auto none = start_runtime("docker", [](Config &c) { c.set("sandbox.network", "none"); });
    const std::string name = "openhands-runtime-" + none->runtime->session_id();
    const json c = inspect_container(name);
    ASSERT_TRUE(c.is_object());
    EXPECT_EQ(c["HostConfig"].value("NetworkMode", ""), "actionhost-internal");
    EXPECT_TRUE(c["NetworkSettings"].value("Ports", json::object()).empty()) << "a port was published from the internal network";
    const std::string address = c["NetworkSettings"]["Networks"]["actionhost-internal"].value("IPAddress", "");
    ASSERT_FALSE(address.empty());
    EXPECT_EQ(none->runtime->url().find("http://" + address + ":"), 0u) << none->runtime->url();
    const auto network = engine_request("GET", "/networks/actionhost-internal");
    ASSERT_EQ(network.status, 200);
    EXPECT_TRUE(json::parse(network.body).value("Internal", false));

    check_bash(*none);  // the client reaches the host
    EXPECT_FALSE(reaches(*none->runtime, NetworkTestHost::kAddress, NetworkTestHost::kPort)) << "the internal network reached the test host";

    // The agent's own server on APP_PORT_1 answers at the container's address (nothing is published).
    const std::string app1 = run(*none->runtime, "echo $APP_PORT_1").value("content", "");
    ASSERT_EQ(exit_code(run(*none->runtime, "mkdir -p /tmp/www && echo test-host-page > /tmp/www/index.html && "
                                             "busybox httpd -p 0.0.0.0:" + app1 + " -h /tmp/www")),
              0);
    std::string body;
    for (int i = 0; i < 50 && body.find("test-host-page") == std::string::npos; ++i) {
        try {
            Endpoint e;
            e.host = address;
            e.port = std::stoi(app1);
            HttpConnection conn(e);
            HttpRequest get;
            get.path = "/index.html";
            get.timeout_s = 5;
            body = conn.send(get).body;
        } catch (const std::exception &) {
            usleep(200000);
        }
    }
    EXPECT_NE(body.find("test-host-page"), std::string::npos);

    // Stopped and started again (pause/resume), the container may come back at another address: followed.
    none->runtime->pause();
    none->runtime->resume();
    EXPECT_EQ(run(*none->runtime, "echo back").value("content", ""), "back");
    none->runtime->close();
    EXPECT_EQ(engine_request("GET", "/containers/" + name + "/json").status, 404);
}

TEST(DockerNetwork, DnsIsTheContainersResolver) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    auto s = start_runtime("docker", [](Config &c) {
        c.set("sandbox.network", "internet");
        c.set("sandbox.dns", json::array({"192.0.2.53"}));
    });
    const json c = inspect_container("openhands-runtime-" + s->runtime->session_id());
    EXPECT_EQ(c["HostConfig"]["Dns"], json::array({"192.0.2.53"}));
    EXPECT_NE(run(*s->runtime, "cat /etc/resolv.conf").value("content", "").find("nameserver 192.0.2.53"), std::string::npos);
    s->runtime->close();
}

// Each refusal names the key and why, and comes before any container is made.
TEST(DockerNetwork, WhatDockerCannotHaveIsRefusedBeforeAnythingStarts) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const auto before = engine_request("GET", "/containers/json?all=true");
    struct Case {
        std::function<void(Config &)> set;
        std::string key, reason;
    };
    const std::vector<Case> cases = {
        {[](Config &c) { c.set("sandbox.allow_out", json::array({"198.51.100.2"})); }, "sandbox.allow_out", "no egress filter"},
        {[](Config &c) { c.set("sandbox.deny_out", json::array({"pypi.org"})); }, "sandbox.deny_out", "no egress filter"},
        {[](Config &c) { c.set("sandbox.secrets", json{{"api", {{"value", "v"}, {"hosts", json::array({"api.example"})}}}}); },
         "sandbox.secrets", "only the sandbox runtime keeps secrets outside"},
        {[](Config &c) { c.set("sandbox.upstream_ca_file", "/etc/ssl/certs/ca-certificates.crt"); }, "sandbox.upstream_ca_file", "no such proxy"},
        {[](Config &c) {
             c.set("sandbox.network", "none");
             c.set("sandbox.additional_networks", json::array({"bridge"}));
         },
         "sandbox.additional_networks", "a way out"},
        {[](Config &c) {
             c.set("sandbox.network", "none");
             c.set("sandbox.use_host_network", true);
         },
         "sandbox.use_host_network", "contradicts"},
        {[](Config &c) {
             c.set("sandbox.network", "host");
             c.set("sandbox.dns", json::array({"192.0.2.53"}));
         },
         "sandbox.dns", "needs sandbox.network = \"internet\""},
    };
    for (const auto &c : cases) {
        const std::string e = refused_start(c.set);
        EXPECT_NE(e.find(c.key), std::string::npos) << c.key << ": " << (e.empty() ? "started" : e);
        EXPECT_NE(e.find(c.reason), std::string::npos) << c.key << ": " << e;
    }
    EXPECT_EQ(engine_request("GET", "/containers/json?all=true").body, before.body) << "a refused start left a container";
}
