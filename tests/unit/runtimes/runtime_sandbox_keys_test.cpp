// The backend-specific [sandbox] keys (config_schema's backend_sandbox_keys) are honoured only by the
// backends whose manifest names them in "sandbox_keys"; the client refuses them for the others when set,
// naming the backend (runtimes/client/src/runtime.cpp, check_sandbox_keys). And each in-tree backend's
// manifest names every such key its own sources read, so no key it honours is ever refused.
#include <actionhost/client/errors.hpp>
#include <actionhost/client/runtime.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <regex>
#include <set>

#include "config_schema.hpp"
#include "patched_fixture_runtime.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::client;
using actionhost::testing::create_error_in;
using actionhost::testing::patched_fixture_dir;
using actionhost::testing::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The fixture backend with "sandbox_keys" put into its manifest (left out when null).
std::string fixture_with(const json &sandbox_keys) {
    return patched_fixture_dir(sandbox_keys.is_null() ? json::object() : json{{"sandbox_keys", sandbox_keys}});
}

// Runtime::create's refusal ("" when it created the runtime).
std::string create_error(const json &sandbox_keys, const std::function<void(Config &)> &set) {
    return create_error_in(fixture_with(sandbox_keys), set);
}

}  // namespace

TEST(RuntimeSandboxKeys, AKeyTheBackendDoesNotNameIsRefusedNamingTheBackend) {
    const std::string e = create_error(json::array(), [](Config &c) {
        c.set("sandbox.memory_limit_mb", 512);
        c.set("sandbox.enable_gpu", true);
    });
    EXPECT_NE(e.find("Runtime fxr_good does not honour sandbox.enable_gpu, sandbox.memory_limit_mb"), std::string::npos) << e;
    EXPECT_NE(e.find("Unset them"), std::string::npos) << e;
    // Named: honoured. One of two named: the other is still refused, alone.
    EXPECT_EQ(create_error(json{"memory_limit_mb", "enable_gpu"}, [](Config &c) {
                  c.set("sandbox.memory_limit_mb", 512);
                  c.set("sandbox.enable_gpu", true);
              }),
              "");
    const std::string one = create_error(json{"memory_limit_mb"}, [](Config &c) {
        c.set("sandbox.memory_limit_mb", 512);
        c.set("sandbox.enable_gpu", true);
    });
    EXPECT_NE(one.find("does not honour sandbox.enable_gpu ("), std::string::npos) << one;
    EXPECT_EQ(one.find("memory_limit_mb"), std::string::npos) << one;
}

TEST(RuntimeSandboxKeys, DefaultsEmptyValuesAndTheClientsOwnKeysAreNoRequest) {
    // Not set: the defaults of backend keys (memory_limit_mb 4096, seccomp true ...) ask for nothing.
    EXPECT_EQ(create_error(json::array(), [](Config &) {}), "");
    // Set empty: nothing asked for either.
    EXPECT_EQ(create_error(json::array(), [](Config &c) {
                  c.set("sandbox.volumes", "");
                  c.set("sandbox.registry_mirrors", json::array());
              }),
              "");
    // The client's own keys, honoured for every backend, are never refused.
    EXPECT_EQ(create_error(json::array(), [](Config &c) {
                  c.set("sandbox.timeout", 30);
                  c.set("sandbox.keep_runtime_alive", true);
                  c.set("sandbox.runtime_startup_env_vars", json{{"A", "1"}});
              }),
              "");
}

TEST(RuntimeSandboxKeys, ABadSandboxKeysListIsRefusedWithTheManifest) {
    // A malformed manifest is skipped with a warning: the runtime it would provide is then unknown.
    RuntimeOptions o;
    static TempDir empty("ahsandboxkeys-bad");
    o.install_dir = empty.path();
    o.config.set("core.runtime", "fxr_good");
    o.config.set("core.runtime_dirs", json::array({fixture_with(json{"Not A Key"})}));
    o.config.set("core.state_dir", empty / "state");
    EXPECT_THROW(Runtime::create(std::move(o)), RuntimeNotFound);
}

// What a backend's sources read ("sandbox.KEY" literals) of the backend-specific keys, its manifest names:
// nothing it honours is refused. Keys the client reads on a backend's behalf (the sandbox runtime's image
// store) are named by hand in its manifest; this checks the other direction is never missed.
TEST(RuntimeSandboxKeys, EachInTreeManifestNamesEveryBackendKeyItsSourcesRead) {
    const auto &backend_keys = detail::backend_sandbox_keys();
    const std::set<std::string> backend(backend_keys.begin(), backend_keys.end());
    const fs::path runtimes = fs::path(AH_SOURCE_DIR) / "runtimes";
    const std::regex literal("\"sandbox\\.([a-z_]+)\"");
    int checked = 0;
    for (const auto &dir : fs::directory_iterator(runtimes)) {
        if (!fs::exists(dir.path() / "manifest.json") || dir.path().filename() == "client") continue;
        const json manifest = json::parse(actionhost::testing::read_file(dir.path() / "manifest.json"));
        std::set<std::string> named;
        for (const auto &k : manifest.value("sandbox_keys", json::array())) named.insert(k.get<std::string>());
        for (const auto &k : named) EXPECT_TRUE(backend.count(k)) << dir.path() << " names " << k << ", not a backend-specific key";
        for (const auto &f : fs::recursive_directory_iterator(dir.path())) {
            if (!f.is_regular_file() || (f.path().extension() != ".cpp" && f.path().extension() != ".hpp")) continue;
            const std::string text = actionhost::testing::read_file(f.path());
            for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it) {
                const std::string key = (*it)[1];
                if (!backend.count(key)) continue;
                EXPECT_TRUE(named.count(key)) << f.path() << " reads sandbox." << key << " but its manifest's sandbox_keys do not name it";
            }
        }
        ++checked;
    }
    EXPECT_EQ(checked, 9) << "the nine in-tree backends";
}
