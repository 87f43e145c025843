#include "patched_fixture_runtime.hpp"

#include <actionhost/client/errors.hpp>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"

namespace actionhost::testing {

namespace fs = std::filesystem;
using nlohmann::json;

std::string patched_fixture_dir(const json &patch) {
    static TempDir root("ahfixture-rt");
    const std::string dir = root / ("k" + std::to_string(std::hash<std::string>{}(patch.dump())));
    if (fs::exists(dir)) return dir;
    fs::create_directories(dir);
    fs::copy(std::string(AH_FIXTURE_RUNTIME_DIR) + "/fxr_good", dir + "/fxr_good", fs::copy_options::recursive);
    const std::string manifest = dir + "/fxr_good/manifest.json";
    std::ifstream in(manifest);
    json m = json::parse(in);
    m.update(patch);
    std::ofstream(manifest) << m.dump();
    return dir;
}

std::string create_error_in(const std::string &dir, const std::function<void(client::Config &)> &set) {
    static TempDir empty("ahfixture-rt-install");
    client::RuntimeOptions o;
    o.install_dir = empty.path();
    o.config.set("core.runtime", "fxr_good");
    o.config.set("core.runtime_dirs", json::array({dir}));
    o.config.set("core.state_dir", empty / "state");
    set(o.config);
    try {
        auto rt = client::Runtime::create(std::move(o));
    } catch (const client::RuntimeError &e) {
        return e.what();
    }
    return "";
}

}  // namespace actionhost::testing
