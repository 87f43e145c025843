// The client refuses, before a backend is created, every [sandbox] network key the backend's manifest does
// not name in "network_keys" (runtimes/client/src/runtime.cpp, check_network_keys): each refusal names the
// key and why. A fixture backend (tests/abi/fixtures/fixture_runtime.cpp) with no network keys, and the
// same backend whose manifest names some of them.
#include <actionhost/client/errors.hpp>
#include <actionhost/client/runtime.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "patched_fixture_runtime.hpp"

using namespace actionhost::client;
using actionhost::testing::create_error_in;
using actionhost::testing::patched_fixture_dir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The fixture backend with `network_keys` put into its manifest (unless null).
std::string fixture_dir(const json &network_keys) {
    return patched_fixture_dir(network_keys.is_null() ? json::object() : json{{"network_keys", network_keys}});
}

std::string create_error(const json &network_keys, const std::function<void(Config &)> &set) {
    return create_error_in(fixture_dir(network_keys), set);
}

}  // namespace

TEST(RuntimeNetworkKeys, EachKeyABackendDoesNotTakeIsRefusedWithItsReason) {
    struct Case {
        std::function<void(Config &)> set;
        std::string key, reason;
    };
    const std::vector<Case> cases = {
        {[](Config &c) { c.set("sandbox.network", "none"); }, "sandbox.network = \"none\"", "network is its provider's"},
        {[](Config &c) { c.set("sandbox.network", "internet"); }, "sandbox.network = \"internet\"", "network is its provider's"},
        {[](Config &c) { c.set("sandbox.allow_out", json::array({"198.51.100.2"})); }, "sandbox.allow_out", "no egress filter"},
        {[](Config &c) { c.set("sandbox.deny_out", json::array({"pypi.org"})); }, "sandbox.deny_out", "no egress filter"},
        {[](Config &c) { c.set("sandbox.dns", json::array({"192.0.2.53"})); }, "sandbox.dns", "resolver is its provider's"},
        {[](Config &c) { c.set("sandbox.secrets", json{{"api", {{"value", "v"}, {"hosts", json::array({"api.example"})}}}}); },
         "sandbox.secrets", "only the sandbox runtime keeps secrets outside"},
        {[](Config &c) { c.set("sandbox.upstream_ca_file", "/etc/ssl/certs/ca.pem"); }, "sandbox.upstream_ca_file", "no such proxy here"},
    };
    for (const auto &c : cases) {
        const std::string e = create_error(nullptr, c.set);
        EXPECT_NE(e.find("Runtime fxr_good does not honour " + c.key), std::string::npos) << c.key << ": " << e;
        EXPECT_NE(e.find(c.reason), std::string::npos) << c.key << ": " << e;
        EXPECT_NE(e.find("-r sandbox"), std::string::npos) << e;
    }
    // "host" asks for no restriction: what such a backend's sandbox has anyway.
    EXPECT_EQ(create_error(nullptr, [](Config &c) { c.set("sandbox.network", "host"); }), "");
    EXPECT_EQ(create_error(nullptr, [](Config &c) { c.set("sandbox.network", true); }), "");
    // Two at once: both named.
    const std::string both = create_error(nullptr, [](Config &c) {
        c.set("sandbox.network", "none");
        c.set("sandbox.dns", json::array({"192.0.2.53"}));
    });
    EXPECT_NE(both.find("sandbox.network"), std::string::npos) << both;
    EXPECT_NE(both.find("sandbox.dns"), std::string::npos) << both;
}

// A backend that names some keys gets those (it maps them, or refuses them itself); the client refuses
// the rest. The docker, modal and kubernetes manifests name theirs this way.
TEST(RuntimeNetworkKeys, TheKeysAManifestNamesGoToTheBackendTheOthersAreRefused) {
    const json some = json::array({"network", "allow_out", "deny_out", "dns"});
    EXPECT_EQ(create_error(some, [](Config &c) {
                  c.set("sandbox.network", "none");
                  c.set("sandbox.allow_out", json::array({"198.51.100.2"}));
                  c.set("sandbox.dns", json::array({"192.0.2.53"}));
              }),
              "");
    const std::string secrets = create_error(some, [](Config &c) {
        c.set("sandbox.network", "internet");
        c.set("sandbox.secrets", json{{"api", {{"value", "v"}, {"hosts", json::array({"api.example"})}}}});
    });
    EXPECT_NE(secrets.find("does not honour sandbox.secrets"), std::string::npos) << secrets;
    EXPECT_EQ(secrets.find("sandbox.network"), std::string::npos) << secrets;
    const std::string ca = create_error(some, [](Config &c) { c.set("sandbox.upstream_ca_file", "/etc/ssl/certs/ca.pem"); });
    EXPECT_NE(ca.find("does not honour sandbox.upstream_ca_file"), std::string::npos) << ca;
    // true: every key (the sandbox runtime's manifest).
    EXPECT_EQ(create_error(true, [](Config &c) { c.set("sandbox.upstream_ca_file", "/etc/ssl/certs/ca.pem"); }), "");
}

// `[sandbox] volumes` as every backend-specific key (runtime_sandbox_keys_test.cpp): a backend whose
// manifest's "sandbox_keys" does not name it refuses the key, naming itself (local, cli, remote,
// kubernetes, modal, runloop, daytona); with it the key is the backend's (sandbox, docker).
TEST(RuntimeVolumes, ABackendWithoutVolumesInItsManifestRefusesThemByName) {
    const auto set = [](Config &c) { c.set("sandbox.volumes", "/srv/data:/data:ro"); };
    const std::string e = create_error_in(patched_fixture_dir(json::object()), set);
    EXPECT_NE(e.find("Runtime fxr_good does not honour sandbox.volumes"), std::string::npos) << e;
    EXPECT_NE(e.find("core.workspace_base"), std::string::npos) << e;  // what to use for the workspace alone
    EXPECT_EQ(create_error_in(patched_fixture_dir(json{{"sandbox_keys", {"volumes"}}}), set), "");
    EXPECT_EQ(create_error_in(patched_fixture_dir(json::object()), [](Config &c) { c.set("sandbox.volumes", ""); }), "");
}
