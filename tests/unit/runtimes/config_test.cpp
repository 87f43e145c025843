// config.toml parsing: OpenHands' keys and defaults, type checks, unknown keys refused.
#include <actionhost/client/config.hpp>
#include <actionhost/client/errors.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include "support/temp_dir.hpp"

using namespace actionhost::client;
using nlohmann::json;

namespace {

// The ConfigError `toml` fails with, or "<loaded>".
std::string error_of(const std::string &toml) {
    try {
        Config::from_toml(toml);
    } catch (const ConfigError &e) {
        return e.what();
    }
    return "<loaded>";
}

}  // namespace

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
    // OpenHands publishes on 0.0.0.0; ours on the loopback unless asked (docs/compat.md, issue #37).
    EXPECT_EQ(c.get("sandbox.runtime_binding_address"), "127.0.0.1");
    EXPECT_EQ(c.get("sandbox.remote_runtime_init_timeout"), 180);
    EXPECT_EQ(c.get("sandbox.user_id"), static_cast<int>(getuid()));
    EXPECT_EQ(c.get("sandbox.runtime_startup_env_vars"), json::object());
    EXPECT_TRUE(c.get("sandbox.network").is_null());  // each backend's own default (sandbox: none; docker: its bridge)
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
    EXPECT_EQ(c.ignored_keys(), (std::vector<std::string>{"core.jwt_secret", "core.max_iterations"}));  // sorted
}

// A config.toml as OpenHands' config.template.toml lays it out, every setting uncommented (keys of
// OpenHands 0.62; values ours): it loads, what we use is read, what we do not is listed once.
TEST(RuntimeConfig, AnOpenHandsConfigTomlLoads) {
    Config c = Config::from_toml(R"(
[core]
workspace_base = "./workspace"
cache_dir = "/tmp/cache"
debug = false
disable_color = false
save_trajectory_path = "./trajectories"
save_screenshots_in_trajectory = false
replay_trajectory_path = ""
file_store_path = "/tmp/file_store"
file_store = "memory"
file_uploads_max_file_size_mb = 0
enable_browser = true
max_budget_per_task = 0.0
max_iterations = 500
workspace_mount_path_in_sandbox = "/workspace"
workspace_mount_path = ""
workspace_mount_rewrite = ""
run_as_openhands = true
runtime = "docker"
default_agent = "CodeActAgent"
jwt_secret = ""
file_uploads_restrict_file_types = false
file_uploads_allowed_extensions = [".*"]
enable_default_condenser = true
max_concurrent_conversations = 3
conversation_max_age_seconds = 864000
e2b_api_key = ""
modal_api_token_id = ""
modal_api_token_secret = ""
a_key_of_a_future_openhands = 1

[llm]
api_key = ""
model = "some-model"
num_retries = 8
safety_settings = []

[llm.draft_editor]
correct_num = 5

[agent]
enable_browsing = true
enable_jupyter = true

[agent.CustomAgent]
classpath = "my_package.my_module.MyCustomAgent"

[sandbox]
timeout = 120
user_id = 1000
base_container_image = "nikolaik/python-nodejs:python3.12-nodejs22"
use_host_network = false
runtime_extra_build_args = ["--network=host", "--add-host=host.docker.internal:host-gateway"]
enable_auto_lint = false
initialize_plugins = true
runtime_extra_deps = ""
runtime_startup_env_vars = {}
browsergym_eval_env = ""
platform = ""
force_rebuild_runtime = false
runtime_container_image = ""
keep_runtime_alive = false
pause_closed_runtimes = false
close_delay = 300
rm_all_containers = false
enable_gpu = false
cuda_visible_devices = ''
docker_runtime_kwargs = {}
vscode_port = 41234
volumes = "/my/host/dir:/workspace:rw"

[security]
confirmation_mode = false
security_analyzer = "llm"

[condenser]
type = "noop"

[kubernetes]
namespace = "default"
ingress_domain = "localhost"
pvc_storage_size = "2Gi"
pvc_storage_class = "standard"
resource_cpu_request = "1"
resource_memory_request = "1Gi"
resource_memory_limit = "2Gi"
image_pull_secret = ""
ingress_tls_secret = ""
node_selector_key = ""
node_selector_val = ""
tolerations_yaml = ""
privileged = false

[mcp]
sse_servers = ["http://localhost:8080/mcp/sse"]
stdio_servers = [{name = "fetch", command = "uvx", args = ["mcp-server-fetch"]}]
)");
    EXPECT_EQ(c.get_string("core.runtime", ""), "docker");
    EXPECT_EQ(c.get_number("sandbox.user_id", 0), 1000);
    EXPECT_EQ(c.get_string("kubernetes.pvc_storage_size", ""), "2Gi");
    EXPECT_EQ(c.get("llm.draft_editor")["correct_num"], 5);
    const auto &ignored = c.ignored_keys();
    for (const char *key : {"core.e2b_api_key", "core.default_agent", "core.max_iterations", "core.a_key_of_a_future_openhands"})
        EXPECT_NE(std::find(ignored.begin(), ignored.end(), key), ignored.end()) << key;
    // Keys we use are not "ignored", and sections we never read are not listed key by key.
    for (const char *key : {"core.runtime", "core.modal_api_token_id", "sandbox.user_id", "llm.model"})
        EXPECT_EQ(std::find(ignored.begin(), ignored.end(), key), ignored.end()) << key;
}

// A checked section spelt otherwise would pass through as a vendor's and lose every setting in it: it
// fails, saying which was meant. OpenHands' sections without runtime settings are listed as ignored;
// [core] keys OpenHands has not either are told apart.
TEST(RuntimeConfig, SectionsMisspeltFailAndOpenHandsOnesAreListed) {
    EXPECT_NE(error_of("[sandbx]\ntimeout = 5\n").find("unknown section [sandbx]; did you mean [sandbox]?"), std::string::npos);
    EXPECT_NE(error_of("[Sandbox]\ntimeout = 5\n").find("did you mean [sandbox]?"), std::string::npos);
    EXPECT_NE(error_of("[CORE]\nruntime = \"local\"\n").find("did you mean [core]?"), std::string::npos);
    EXPECT_NE(error_of("[kubernets]\nnamespace = \"x\"\n").find("did you mean [kubernetes]?"), std::string::npos);
    // Short vendor sections near "core" are a backend's, not a typo.
    EXPECT_EQ(error_of("[code]\nx = 1\n[modal]\nimage = \"y\"\n"), "<loaded>");
    Config c = Config::from_toml("[core]\nmax_iterations = 3\nfrobnicate = 1\n[llm]\nmodel = \"m\"\n[llm.other]\nmodel = \"n\"\n"
                                 "[agent]\nenable_browsing = true\n[modal]\nimage = \"y\"\n");
    EXPECT_EQ(c.ignored_keys(), (std::vector<std::string>{"[agent]", "core.frobnicate", "core.max_iterations", "[llm]"}));
    EXPECT_EQ(c.unknown_keys(), (std::vector<std::string>{"core.frobnicate"}));
    EXPECT_EQ(c.get_string("modal.image", ""), "y");  // a backend's section passes through, unlisted
}

// A misspelling of a key we use fails in every checked section, saying which key was meant.
TEST(RuntimeConfig, AMisspelledKeyFailsWithDidYouMean) {
    EXPECT_NE(error_of("[core]\nruntme = \"local\"\n").find("did you mean 'runtime'?"), std::string::npos);
    EXPECT_NE(error_of("[core]\nworkspace_bsae = \"/w\"\n").find("did you mean 'workspace_base'?"), std::string::npos);
    EXPECT_NE(error_of("[sandbox]\ntimeot = 5\n").find("did you mean 'timeout'?"), std::string::npos);
    EXPECT_NE(error_of("[kubernetes]\nnamespce = \"x\"\n").find("did you mean 'namespace'?"), std::string::npos);
    EXPECT_NE(error_of("[kubernetes]\nnot_a_key = 1\n").find("no extra keys"), std::string::npos);
    EXPECT_NE(error_of("[kubernetes]\nprivileged = \"yes\"\n").find("must be a boolean"), std::string::npos);
}

TEST(RuntimeConfig, KubernetesKeysHaveOpenHandsEnvOverrides) {
    Config c = Config::from_toml("[kubernetes]\nnamespace = \"from-file\"\n");
    c.apply_env({{"KUBERNETES_NAMESPACE", "from-env"}, {"KUBERNETES_PRIVILEGED", "true"}, {"INIT_GIT_IN_EMPTY_WORKSPACE", "1"}});
    EXPECT_EQ(c.get_string("kubernetes.namespace", ""), "from-env");
    EXPECT_TRUE(c.get_bool("kubernetes.privileged"));
    EXPECT_TRUE(c.get_bool("core.init_git_in_empty_workspace"));
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
    // A directory opens and reads as nothing: loading it as an empty configuration would drop every
    // setting of a mistyped -c without a word.
    try {
        Config::from_file(dir.path());
        FAIL() << "a directory loaded as a configuration";
    } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
    }
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
