// The image-needs check against this machine's real files: /usr/bin/python3 with ipykernel (a package of
// scripts/apt-packages.txt), a module no Python has, a bundled file, a configured override.
#include "modules/image_needs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "support/temp_dir.hpp"

using namespace actionhost::host;
using namespace actionhost::modules;

namespace {

Manifest manifest_with(std::vector<ImageNeed> needs) {
    Manifest m;
    m.name = "p";
    m.needs = std::move(needs);
    return m;
}

ImageNeeds::Lookup lookup(std::map<std::string, std::string> values) {
    auto held = std::make_shared<std::map<std::string, std::string>>(std::move(values));
    return [held](const std::string &key) -> const char * {
        auto it = held->find(key);
        return it == held->end() ? nullptr : it->second.c_str();
    };
}

}  // namespace

TEST(ImageNeeds, PythonWithAModuleIsFoundAndPublishedByPath) {
    ImageNeeds needs("/nonexistent", lookup({{"PATH", "/usr/bin:/bin"}}));
    auto s = needs.check(manifest_with({{"python3", "python3 with ipykernel", "python3-ipykernel", {"/usr/bin/python3"}, "ipykernel", "", {}}}));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_TRUE(s[0].met) << s[0].looked_at;
    EXPECT_EQ(s[0].path, "/usr/bin/python3");
    EXPECT_TRUE(needs_met("p", s));
}

TEST(ImageNeeds, AMissingModuleNamesThePackageAndWhereItLooked) {
    ImageNeeds needs("/nonexistent", lookup({{"PATH", "/usr/bin:/bin"}}));
    auto s = needs.check(manifest_with({{"python3", "python3 with nomodule", "python3-nomodule", {"/usr/bin/python3", "python3"},
                                         "actionhost_no_such_module", "", {}}}));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_FALSE(s[0].met);
    const auto met = needs_met("jupyter", s);
    ASSERT_FALSE(met);
    EXPECT_EQ(met.error().message, "The jupyter plugin needs python3 with nomodule, which this image does not have: install python3-nomodule "
                   "(looked for /usr/bin/python3, python3 on PATH; with the Python module actionhost_no_such_module).");
    nlohmann::json j = unmet_need_json("jupyter", s[0]);
    EXPECT_EQ(j["package"], "python3-nomodule");
    EXPECT_EQ(j["need"], "python3");
}

TEST(ImageNeeds, TheBundledFileMeetsANeedTheImageLacks) {
    actionhost::testing::TempDir install("ahneeds");
    std::filesystem::create_directories(install / "libexec");
    std::filesystem::copy_file("/bin/true", install / "libexec/tool");
    ImageNeeds needs(install.path(), lookup({{"PATH", install.path()}}));
    auto s = needs.check(manifest_with({{"tool", "a tool", "tool", {"actionhost-no-such-tool"}, "", "libexec/tool", {}}}));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_TRUE(s[0].met);
    EXPECT_EQ(s[0].path, install.path() + "/libexec/tool");
}

TEST(ImageNeeds, AConfiguredOverrideOrADirectoryVariableMeetsIt) {
    ImageNeeds configured("/nonexistent", lookup({{"MY_TOOL", "/opt/x"}}));
    auto s = configured.check(manifest_with({{"tool", "a tool", "tool", {"/nonexistent/tool"}, "", "", {"MY_TOOL"}}}));
    EXPECT_TRUE(s[0].met);
    EXPECT_EQ(s[0].path, "");
    ImageNeeds below("/nonexistent", lookup({{"TOOLS", "/usr"}}));
    auto b = below.check(manifest_with({{"tool", "a tool", "tool", {"$UNSET_VAR/bin/true", "$TOOLS/bin/true"}, "", "", {}}}));
    EXPECT_TRUE(b[0].met);
    EXPECT_EQ(b[0].path, "/usr/bin/true");
}

TEST(ImageNeeds, CheckedOncePerPlugin) {
    actionhost::testing::TempDir dir("ahneeds-once");
    ImageNeeds needs("/nonexistent", lookup({}));
    const std::string tool = dir / "tool";
    auto m = manifest_with({{"tool", "a tool", "tool", {tool}, "", "", {}}});
    EXPECT_FALSE(needs.check(m)[0].met);
    std::filesystem::copy_file("/bin/true", tool);
    EXPECT_FALSE(needs.check(m)[0].met) << "remembered, not probed again per action";
}
