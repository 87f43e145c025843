// The client loads its runtime backends through the one module loader the host loads plugins with
// (common/modules): a fixture backend (tests/abi/fixtures/fixture_runtime.cpp, real .so modules) with a
// NULL slot, a table too small, another ABI major, no entry symbol, or a manifest whose ABI is malformed
// or of another major is refused with one line naming the file and the reason — as the host refuses a
// plugin.
#include <actionhost/abi.h>
#include <actionhost/client/errors.hpp>
#include <actionhost/client/runtime.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

using namespace actionhost::client;
using actionhost::testing::TempDir;

namespace {

const std::string kFixtures = AH_FIXTURE_RUNTIME_DIR;

struct Attempt {
    std::unique_ptr<Runtime> runtime;
    std::string error;
    std::vector<std::string> log;
};

// Runtime::create of fixture `name` from the fixture directory only (the install dir is an empty temp dir).
Attempt create(const std::string &name) {
    static TempDir empty("ahloader");
    Attempt a;
    RuntimeOptions o;
    o.install_dir = empty.path();
    o.config.set("core.runtime", name);
    o.config.set("core.runtime_dirs", nlohmann::json::array({kFixtures}));
    o.config.set("core.state_dir", empty / "state");
    o.on_log = [&a](int, const std::string &line) { a.log.push_back(line); };
    try {
        a.runtime = Runtime::create(std::move(o));
    } catch (const std::exception &e) {
        a.error = e.what();
    }
    return a;
}

std::string library(const std::string &name) { return kFixtures + "/" + name + "/libah_" + name + ".so"; }

std::string our_abi(int major_delta = 0) {
    return std::to_string(AH_ABI_VERSION_MAJOR + major_delta) + "." + std::to_string(AH_ABI_VERSION_MINOR) + "." +
           std::to_string(AH_ABI_VERSION_PATCH);
}

}  // namespace

TEST(RuntimeLoader, AGoodBackendLoads) {
    auto a = create("fxr_good");
    EXPECT_EQ(a.error, "");
    EXPECT_NE(a.runtime, nullptr);
}

// runtime.h: set_error records the failing call's reason per thread, so a backend's helper thread setting
// another text cannot replace the reason of the call that failed.
TEST(RuntimeLoader, SetErrorIsKeptPerThread) {
    auto a = create("fxr_create_error");
    EXPECT_EQ(a.runtime, nullptr);
    EXPECT_NE(a.error.find("could not be created: the backend's own reason"), std::string::npos) << a.error;
}

TEST(RuntimeLoader, ANullSlotIsRefused) {
    EXPECT_EQ(create("fxr_null_slot").error,
              "refusing runtime module " + library("fxr_null_slot") + ": its runtime struct has a NULL 'pause' function");
}

TEST(RuntimeLoader, ATableTooSmallIsRefused) {
    const std::string e = create("fxr_small_struct").error;
    EXPECT_EQ(e.rfind("refusing runtime module " + library("fxr_small_struct") + ": its runtime struct is too small (", 0), 0u) << e;
}

TEST(RuntimeLoader, AnotherAbiMajorIsRefused) {
    EXPECT_EQ(create("fxr_wrong_major").error, "refusing runtime module " + library("fxr_wrong_major") + ": it was built for ABI " +
                                                   std::to_string(AH_ABI_VERSION_MAJOR + 1) + ".0.0, this client implements " +
                                                   our_abi() + " (major differs)");
}

TEST(RuntimeLoader, AMissingEntrySymbolIsRefused) {
    EXPECT_EQ(create("fxr_missing_symbol").error,
              "refusing runtime module " + library("fxr_missing_symbol") + ": it lacks the entry symbol actionhost_runtime_entry");
}

TEST(RuntimeLoader, AManifestOfAnotherMajorIsRefusedWithoutLoading) {
    EXPECT_EQ(create("fxr_manifest_major").error, "refusing runtime module " + library("fxr_manifest_major") +
                                                      ": its manifest declares ABI 99.0.0, this client implements " + our_abi() +
                                                      " (major differs)");
}

// A manifest whose ABI is not MAJOR.MINOR.PATCH provides nothing: the name is unknown, and the log says
// which manifest was skipped and why.
TEST(RuntimeLoader, AMalformedManifestVersionIsSkippedWithItsReason) {
    auto a = create("fxr_bad_manifest_version");
    EXPECT_EQ(a.error.rfind("Runtime fxr_bad_manifest_version not supported, known are: [", 0), 0u) << a.error;
    const std::string expected = "Skipping runtime manifest " + kFixtures +
                                 "/fxr_bad_manifest_version/manifest.json: \"abi_version\" must be MAJOR.MINOR.PATCH, got \"2.0\"";
    EXPECT_NE(std::find(a.log.begin(), a.log.end(), expected), a.log.end()) << ::testing::PrintToString(a.log);
}
