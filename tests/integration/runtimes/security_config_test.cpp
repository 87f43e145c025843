// [security] of the client's configuration reaches the host's policy stage through a real backend: a
// denied command never runs, a denied path is never read, and a wrongly typed key is refused by the
// client before anything starts.
#include <gtest/gtest.h>

#include <actionhost/client/config.hpp>
#include <actionhost/client/errors.hpp>

#include <actionhost/common/json_write.hpp>

#include "services_harness.hpp"

using namespace services_test;
using nlohmann::json;

class SecurityConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(SecurityConfig, DenyRulesFromTheConfigurationFileReachTheHost) {
    const std::string mark = "/tmp/ah-policy-mark-" + std::to_string(::getpid());
    auto s = start(GetParam(), [&](actionhost::client::RuntimeOptions &o) {
        const auto file = actionhost::client::Config::from_toml(
            "[security]\ndeny_commands = [\"^touch /tmp/ah-policy-mark\"]\ndeny_paths = [\"/etc/shadow\"]\n");
        o.config.set("security.deny_commands", file.get("security.deny_commands"));
        o.config.set("security.deny_paths", file.get("security.deny_paths"));
    });
    auto &rt = *s->runtime;
    const json denied = run(rt, "touch " + mark);
    EXPECT_NE(content(denied).find("denied by policy"), std::string::npos) << actionhost::common::dump_json(denied);
    EXPECT_NE(content(denied).find("deny_commands[0]"), std::string::npos) << actionhost::common::dump_json(denied);
    EXPECT_EQ(content(run(rt, "test -e " + mark + " && echo ran || echo never-ran")), "never-ran");
    const json read = rt.execute({{"action", "read"}, {"args", {{"path", "/etc/shadow"}}}});
    EXPECT_NE(actionhost::common::dump_json(read).find("deny_paths[0]"), std::string::npos) << actionhost::common::dump_json(read);
    EXPECT_EQ(content(run(rt, "echo allowed")), "allowed");
}

INSTANTIATE_TEST_SUITE_P(Runtimes, SecurityConfig, ::testing::Values("local", "sandbox"), [](const auto &info) { return info.param; });

TEST(SecurityConfigKeys, AWronglyTypedKeyIsRefusedNamingIt) {
    try {
        actionhost::client::Config::from_toml("[security]\ndeny_commands = \"rm\"\n");
        FAIL() << "a string where a list belongs was accepted";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("deny_commands"), std::string::npos) << e.what();
    }
}
