// OpenHands' environment overrides: RUNTIME, SANDBOX_<FIELD>, bool true/1, empty ignored.
#include <actionhost/client/config.hpp>
#include <actionhost/client/errors.hpp>
#include <gtest/gtest.h>

using namespace actionhost::client;
using nlohmann::json;

TEST(RuntimeEnvOverrides, TopLevelAndSandboxFields) {
    Config c = Config::from_toml("[core]\nruntime = \"docker\"\n[sandbox]\ntimeout = 10\n");
    c.apply_env({{"RUNTIME", "local"}, {"SANDBOX_TIMEOUT", "45"}, {"WORKSPACE_BASE", "/w"},
                 {"SANDBOX_CPU_LIMIT", "1.5"}});
    EXPECT_EQ(c.runtime(), "local");
    EXPECT_EQ(c.get("sandbox.timeout"), 45);
    EXPECT_EQ(c.get("core.workspace_base"), "/w");
    EXPECT_DOUBLE_EQ(c.get_number("sandbox.cpu_limit", 0), 1.5);
}

TEST(RuntimeEnvOverrides, BoolIsTrueOrOne) {
    Config c;
    c.apply_env({{"SANDBOX_KEEP_RUNTIME_ALIVE", "1"}, {"SANDBOX_USE_HOST_NETWORK", "True"},
                 {"SANDBOX_PAUSE_CLOSED_RUNTIMES", "yes"}, {"DEBUG", "0"}});
    EXPECT_EQ(c.get("sandbox.keep_runtime_alive"), true);
    EXPECT_EQ(c.get("sandbox.use_host_network"), true);
    EXPECT_EQ(c.get("sandbox.pause_closed_runtimes"), false);  // anything but true/1 is false
    EXPECT_EQ(c.get("core.debug"), false);
}

TEST(RuntimeEnvOverrides, EmptyValuesAreIgnored) {
    Config c = Config::from_toml("[core]\nruntime = \"local\"\n");
    c.apply_env({{"RUNTIME", ""}, {"SANDBOX_TIMEOUT", ""}});
    EXPECT_EQ(c.runtime(), "local");
    EXPECT_EQ(c.get("sandbox.timeout"), 120);
}

TEST(RuntimeEnvOverrides, ListsAndDictsAsPythonLiterals) {
    Config c;
    c.apply_env({{"SANDBOX_RUNTIME_STARTUP_ENV_VARS", "{'A': '1', \"B\": 'x y'}"},
                 {"SANDBOX_ADDITIONAL_NETWORKS", "['n1', 'n2']"}, {"SANDBOX_TRUSTED_DIRS", "[\"/a\"]"}});
    EXPECT_EQ(c.get("sandbox.runtime_startup_env_vars"), json({{"A", "1"}, {"B", "x y"}}));
    EXPECT_EQ(c.get("sandbox.additional_networks"), json({"n1", "n2"}));
    EXPECT_EQ(c.get("sandbox.trusted_dirs"), json({"/a"}));
}

TEST(RuntimeEnvOverrides, BadValuesAreClearErrors) {
    Config c;
    try {
        c.apply_env({{"SANDBOX_TIMEOUT", "soon"}});
        FAIL();
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("SANDBOX_TIMEOUT"), std::string::npos) << e.what();
    }
    EXPECT_THROW(c.apply_env({{"SANDBOX_ADDITIONAL_NETWORKS", "{'a': 1}"}}), ConfigError);
}

TEST(RuntimeEnvOverrides, UnknownVariablesAreNotFields) {
    Config c;
    c.apply_env({{"SANDBOX_NOT_A_FIELD", "1"}, {"RUNTIMEX", "y"}});
    EXPECT_EQ(c.runtime(), "docker");
}

TEST(RuntimeEnvOverrides, SandboxEnvAndVolumes) {
    Config c;
    c.apply_env({{"SANDBOX_ENV_GITHUB_TOKEN", "t0k"}, {"SANDBOX_ENV_lower", "v"},
                 {"SANDBOX_VOLUMES", "/data:/data:ro,/src/proj:/workspace:rw"}});
    EXPECT_EQ(c.sandbox_env().at("GITHUB_TOKEN"), "t0k");
    EXPECT_EQ(c.sandbox_env().at("LOWER"), "v");  // keys upper-cased as OpenHands does
    EXPECT_EQ(c.get("core.workspace_base"), "/src/proj");
    EXPECT_EQ(c.get("sandbox.volumes"), "/data:/data:ro,/src/proj:/workspace:rw");
}
