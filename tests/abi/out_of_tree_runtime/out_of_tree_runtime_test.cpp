// A third-party runtime built against the INSTALLED SDK only (cmake --install --component sdk, then a
// separate CMake project with find_package(ActionHostSDK)), resolved as runtime = "vendor.CustomRuntime".
#include <actionhost/client/errors.hpp>
#include <actionhost/client/runtime.hpp>
#include <gtest/gtest.h>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::client;
using actionhost::testing::run_process;
using actionhost::testing::TempDir;

TEST(OutOfTreeRuntime, BuiltAgainstTheInstalledSdkAndResolvedByName) {
    TempDir work("ahoot");
    std::string build_dir = actionhost::testing::build_path("");
    auto install = run_process({AH_CMAKE_COMMAND, "--install", build_dir, "--prefix", work / "sdk", "--component", "sdk"}, 120);
    ASSERT_EQ(install.exit_code, 0) << install.output;
    auto configure = run_process({AH_CMAKE_COMMAND, "-S", AH_OOT_SOURCE, "-B", work / "build", "-DCMAKE_PREFIX_PATH=" + work / "sdk",
                                  "-DCMAKE_BUILD_TYPE=Release"}, 180);
    ASSERT_EQ(configure.exit_code, 0) << configure.output;
    // Only the installed SDK was visible: the project found it under the temporary prefix.
    EXPECT_EQ(configure.output.find(std::string(AH_SOURCE_DIR) + "/sdk"), std::string::npos);
    auto build = run_process({AH_CMAKE_COMMAND, "--build", work / "build"}, 240);
    ASSERT_EQ(build.exit_code, 0) << build.output;

    RuntimeOptions o;
    o.install_dir = build_dir;
    if (o.install_dir.back() == '/') o.install_dir.pop_back();
    o.config.set("core.runtime", "vendor.CustomRuntime");
    o.config.set("core.runtime_dirs", nlohmann::json::array({work / "build/runtimes"}));
    o.config.set("core.state_dir", work / "state");
    o.config.set("vendor.marker", "from-config");
    auto rt = Runtime::create(std::move(o));
    EXPECT_EQ(rt->module_name(), "vendor");
    rt->connect();
    EXPECT_EQ(rt->runtime_id(), "vendor-1");
    nlohmann::json obs = rt->execute({{"action", "run"}, {"args", {{"command", "echo $VENDOR_MARKER"}}}, {"timeout", 30}});
    EXPECT_EQ(obs.value("content", ""), "from-config") << obs.dump();
    EXPECT_THROW(rt->pause(), RuntimeError);  // the vendor said AH_ERR_UNSUPPORTED
    rt->close();

    // An unknown vendor name lists what the search path knows, the vendor's runtime included.
    RuntimeOptions bad;
    bad.install_dir = build_dir;
    bad.config.set("core.runtime", "vendor.Missing");
    bad.config.set("core.runtime_dirs", nlohmann::json::array({work / "build/runtimes"}));
    bad.config.set("core.state_dir", work / "state");
    try {
        Runtime::create(std::move(bad));
        FAIL();
    } catch (const RuntimeNotFound &e) {
        EXPECT_NE(std::string(e.what()).find("'vendor.CustomRuntime'"), std::string::npos) << e.what();
    }
}
