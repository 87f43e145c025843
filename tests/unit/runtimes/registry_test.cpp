// Runtime resolution through manifests on the search path, with OpenHands' names and errors.
#include <actionhost/client/config.hpp>
#include <actionhost/client/errors.hpp>
#include <actionhost/client/registry.hpp>
#include <actionhost/client/runtime.hpp>
#include <gtest/gtest.h>

#include "support/temp_dir.hpp"

using namespace actionhost::client;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;

namespace {
void manifest(const TempDir &dir, const std::string &module, const std::string &provides, const std::string &kind = "runtime") {
    write_file(dir / (module + "/manifest.json"),
               R"({"name":")" + module + R"(","kind":")" + kind + R"(","version":"1.2.3","abi_version":"1.0.0",)"
               R"("library":"libah_)" + module + R"(.so","provides":{"runtimes":)" + provides + "}}");
}
}  // namespace

TEST(RuntimeRegistry, ResolvesProvidedNames) {
    TempDir a, b;
    manifest(a, "local", R"(["local"])");
    manifest(b, "vendor", R"(["vendor.CustomRuntime","vendor.Other"])");
    manifest(b, "jupyter", R"([])", "plugin");
    auto reg = RuntimeRegistry::scan({a.path(), b.path(), "/nonexistent/dir"});
    EXPECT_EQ(reg.resolve("local").name, "local");
    EXPECT_EQ(reg.resolve("vendor.CustomRuntime").name, "vendor");
    EXPECT_EQ(reg.resolve("vendor.CustomRuntime").library_path, b / "vendor/libah_vendor.so");
    EXPECT_EQ(reg.resolve("vendor.Other").version, "1.2.3");
    EXPECT_EQ(reg.known(), (std::vector<std::string>{"local", "vendor.CustomRuntime", "vendor.Other"}));
}

TEST(RuntimeRegistry, UnknownNameListsTheKnownOnes) {
    TempDir a;
    manifest(a, "local", R"(["local"])");
    manifest(a, "sandbox", R"(["sandbox"])");
    auto reg = RuntimeRegistry::scan({a.path()});
    try {
        reg.resolve("vendor.Missing");
        FAIL();
    } catch (const RuntimeNotFound &e) {
        EXPECT_STREQ(e.what(), "Runtime vendor.Missing not supported, known are: ['local', 'sandbox']");
    }
}

TEST(RuntimeRegistry, EventstreamIsDocker) {
    TempDir a;
    manifest(a, "docker", R"(["docker"])");
    EXPECT_EQ(RuntimeRegistry::scan({a.path()}).resolve("eventstream").name, "docker");
}

TEST(RuntimeRegistry, FirstProviderWinsAndBadManifestsAreSkipped) {
    TempDir a, b;
    manifest(a, "local", R"(["local"])");
    manifest(b, "local2", R"(["local"])");
    write_file(b / "broken/manifest.json", "{not json");
    auto reg = RuntimeRegistry::scan({a.path(), b.path()});
    EXPECT_EQ(reg.resolve("local").name, "local");
    ASSERT_EQ(reg.warnings().size(), 1u);
    EXPECT_NE(reg.warnings()[0].find("broken"), std::string::npos);
}

TEST(RuntimeRegistry, CreateRefusesUnknownRuntime) {
    TempDir empty;
    RuntimeOptions o;
    o.install_dir = empty.path();
    o.config.set("core.runtime", "nope");
    o.config.set("core.state_dir", empty / "state");
    try {
        Runtime::create(std::move(o));
        FAIL();
    } catch (const RuntimeNotFound &e) {
        EXPECT_EQ(std::string(e.what()).rfind("Runtime nope not supported, known are: [", 0), 0u) << e.what();
    }
}

// Issue 31: `sandbox` is the default everywhere; a Docker engine on the machine (its socket, DOCKER_HOST)
// no longer picks docker — the README's main job failed there on an image nobody had pulled.
TEST(RuntimeRegistry, DefaultIsSandboxEvenWithADockerEngine) {
    Config c;
    c.set("sandbox.docker_socket", "/nonexistent/docker.sock");
    EXPECT_EQ(select_runtime_name(c, {}), "sandbox");
    EXPECT_EQ(select_runtime_name(c, {{"DOCKER_HOST", "unix:///x.sock"}}), "sandbox");
    Config with_socket;
    EXPECT_EQ(select_runtime_name(with_socket, {}), "sandbox");
    c.set("core.runtime", "docker");
    EXPECT_EQ(select_runtime_name(c, {{"DOCKER_HOST", "unix:///x.sock"}}), "docker");
    c.set("core.runtime", "local");
    EXPECT_EQ(select_runtime_name(c, {}), "local");
}

// Runtimes and plugins share one search-path rule (modules::module_search_path): the install tree, then
// the configured directories, then the kind's own variable.
TEST(RuntimeRegistry, TheSearchPathIsTheModulesRuleWithItsOwnVariable) {
    ::setenv("ACTIONHOST_RUNTIME_PATH", "/opt/a::/opt/b", 1);
    ::setenv("ACTIONHOST_PLUGIN_PATH", "/opt/plugins-only", 1);
    EXPECT_EQ(runtime_search_path("/usr", {"/etc/rt"}),
              (std::vector<std::string>{"/usr/lib/actionhost/runtimes", "/etc/rt", "/opt/a", "/opt/b"}));
    EXPECT_EQ(runtime_search_path("", {}), (std::vector<std::string>{"/opt/a", "/opt/b"}));
    ::unsetenv("ACTIONHOST_RUNTIME_PATH");
    ::unsetenv("ACTIONHOST_PLUGIN_PATH");
    EXPECT_EQ(runtime_search_path("/usr", {}), (std::vector<std::string>{"/usr/lib/actionhost/runtimes"}));
}
