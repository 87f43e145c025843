// config.toml parsing: OpenHands' keys and defaults, type checks, unknown keys refused.
#include <actionhost/client/config.hpp>
#include <actionhost/client/errors.hpp>
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/temp_dir.hpp"

using namespace actionhost::client;
using nlohmann::json;

TEST(RuntimeConfig, DefaultsAreOpenHands) {
    Config c;
    EXPECT_EQ(c.runtime(), "docker");
    EXPECT_EQ(c.get("core.workspace_mount_path_in_sandbox"), "/workspace");
    EXPECT_TRUE(c.get("core.workspace_base").is_null());
    EXPECT_EQ(c.get("core.run_as_openhands"), true);
    EXPECT_EQ(c.get("core.git_user_email"), "openhands@all-hands.dev");
    EXPECT_EQ(c.get("sandbox.timeout"), 120);
    EXPECT_EQ(c.get("sandbox.keep_runtime_alive"), false);
    EXPECT_EQ(c.get("sandbox.pause_closed_runtimes"), true);
    EXPECT_EQ(c.get("sandbox.close_delay"), 3600);
    EXPECT_EQ(c.get("sandbox.base_container_image"), "nikolaik/python-nodejs:python3.12-nodejs22");
    EXPECT_EQ(c.get("sandbox.runtime_binding_address"), "0.0.0.0");
    EXPECT_EQ(c.get("sandbox.remote_runtime_init_timeout"), 180);
    EXPECT_EQ(c.get("sandbox.user_id"), static_cast<int>(getuid()));
    EXPECT_EQ(c.get("sandbox.runtime_startup_env_vars"), json::object());
    EXPECT_EQ(c.get("sandbox.network"), false);
    EXPECT_FALSE(c.is_explicit("core.runtime"));
}

TEST(RuntimeConfig, ParsesSectionsAndRendersText) {
    Config c = Config::from_toml(R"(
[core]
runtime = "sandbox"
workspace_base = "/tmp/ws"
debug = true
[sandbox]
timeout = 300
cpu_limit = 2
runtime_startup_env_vars = { FOO = "bar" }
additional_networks = ["a", "b"]
[kubernetes]
namespace = "ns1"
)");
    EXPECT_EQ(c.runtime(), "sandbox");
    EXPECT_TRUE(c.is_explicit("core.runtime"));
    EXPECT_EQ(c.get_text("core.workspace_base"), "/tmp/ws");
    EXPECT_EQ(c.get_text("core.debug"), "true");
    EXPECT_EQ(c.get_text("sandbox.timeout"), "300");
    EXPECT_DOUBLE_EQ(c.get_number("sandbox.cpu_limit", 0), 2.0);
    EXPECT_EQ(json::parse(*c.get_text("sandbox.runtime_startup_env_vars")), json({{"FOO", "bar"}}));
    EXPECT_EQ(json::parse(*c.get_text("sandbox.additional_networks")), json({"a", "b"}));
    EXPECT_EQ(c.get_text("kubernetes.namespace"), "ns1");  // other sections pass through
    EXPECT_FALSE(c.get_text("sandbox.api_key").has_value());
    EXPECT_FALSE(c.get_text("nosuch.key").has_value());
}

TEST(RuntimeConfig, RefusesUnknownSandboxKey) {
    try {
        Config::from_toml("[sandbox]\ntimeout = 5\nno_such_key = 1\n");
        FAIL() << "accepted an unknown key";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("no_such_key"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("[sandbox]"), std::string::npos) << e.what();
    }
}

TEST(RuntimeConfig, RefusesUnknownCoreKeyButAcceptsOpenHandsOnes) {
    EXPECT_THROW(Config::from_toml("[core]\nruntim = \"local\"\n"), ConfigError);
    Config c = Config::from_toml("[core]\nmax_iterations = 100\njwt_secret = \"x\"\n");
    EXPECT_EQ(c.get("core.max_iterations"), 100);
}

TEST(RuntimeConfig, RefusesWrongTypes) {
    EXPECT_THROW(Config::from_toml("[sandbox]\ntimeout = \"long\"\n"), ConfigError);
    EXPECT_THROW(Config::from_toml("[sandbox]\nkeep_runtime_alive = 1\n"), ConfigError);
    EXPECT_THROW(Config::from_toml("[core]\nruntime = 3\n"), ConfigError);
    EXPECT_THROW(Config::from_toml("[sandbox]\nruntime_startup_env_vars = [1]\n"), ConfigError);
}

TEST(RuntimeConfig, SyntaxErrorNamesLine) {
    try {
        Config::from_toml("[core]\nruntime = \n", "my.toml");
        FAIL();
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("my.toml:2"), std::string::npos) << e.what();
    }
}

TEST(RuntimeConfig, FromFileAndMissingFile) {
    actionhost::testing::TempDir dir;
    actionhost::testing::write_file(dir / "config.toml", "[core]\nruntime = \"local\"\n");
    EXPECT_EQ(Config::from_file(dir / "config.toml").runtime(), "local");
    EXPECT_THROW(Config::from_file(dir / "missing.toml"), ConfigError);
    EXPECT_EQ(Config::load(dir / "config.toml", {{"RUNTIME", "sandbox"}}).runtime(), "sandbox");
}

TEST(RuntimeConfig, SetIsTypeChecked) {
    Config c;
    c.set("sandbox.timeout", 7);
    EXPECT_EQ(c.get("sandbox.timeout"), 7);
    EXPECT_THROW(c.set("sandbox.timeout", "x"), ConfigError);
    EXPECT_THROW(c.set("sandbox.bogus", 1), ConfigError);
    EXPECT_THROW(c.set("nodot", 1), ConfigError);
    c.set("vendor.anything", "v");
    EXPECT_EQ(c.get_text("vendor.anything"), "v");
}
