#include "cli/options.hpp"

#include <gtest/gtest.h>

using namespace actionhost::host;
using namespace actionhost::modules;

namespace {

// A plugin's manifest declaring OpenHands' browser flags, as plugins/browser/manifest.json does.
Manifest with_browser_options() {
    auto parsed = parse_manifest(R"({"name":"b","kind":"plugin","version":"1","abi_version":"2.0.0","library":"x.so",
      "provides":{"actions":["browse"]},
      "options":{"--no-enable-browser":{"sets":{"B_ON":"0"}},"--enable-browser":{"sets":{"B_ON":"1"}},
                 "--browsergym-eval-env":{"value_of":"B_ENV"}}})",
                                 "/x");
    EXPECT_TRUE(parsed) << parsed.error().message;
    return parsed.value();
}

}  // namespace

TEST(Options, ParsesTheOpenHandsCommandLine) {
    auto r = parse_options({"30000", "--working-dir", "/workspace", "--plugins", "agent_skills", "jupyter", "vscode",
                            "--username", "openhands", "--user-id", "1000", "--no-enable-browser"});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().port, 30000);
    EXPECT_EQ(r.value().working_dir, "/workspace");
    EXPECT_EQ(r.value().plugins, (std::vector<std::string>{"agent_skills", "jupyter", "vscode"}));
    EXPECT_EQ(r.value().username, "openhands");
    EXPECT_EQ(r.value().user_id, 1000);
    EXPECT_EQ(r.value().plugin_flags, std::vector<std::string>{"--no-enable-browser"});
}

TEST(Options, DefaultsAreOpenHands) {
    auto r = parse_options({"8000"});
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value().username, "openhands");
    EXPECT_EQ(r.value().user_id, 1000);
    EXPECT_TRUE(r.value().plugin_flags.empty());
    EXPECT_EQ(r.value().bind_host, "0.0.0.0");
}

TEST(Options, RejectsBadInputWithAReason) {
    EXPECT_EQ(parse_options({}).error().message, "PORT is required");
    EXPECT_NE(parse_options({"abc"}).error().message.find("PORT must be an integer"), std::string::npos);
    EXPECT_NE(parse_options({"70000"}).error().message.find("PORT"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--plugins"}).error().message.find("--plugins"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--user-id", "-3"}).error().message.find("--user-id"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--user-id", "x"}).error().message.find("--user-id"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--set", "novalue"}).error().message.find("KEY=VALUE"), std::string::npos);
}

TEST(Options, SettingsAndOurExtensions) {
    auto r = parse_options({"0", "--set", "A=b=c", "--plugin-dir", "/x", "--port-file", "/tmp/p", "--host", "127.0.0.1"});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().settings.at("A"), "b=c");
    EXPECT_EQ(r.value().plugin_dirs, std::vector<std::string>{"/x"});
    EXPECT_TRUE(parse_options({"--list-plugins"}).value().list_plugins);
    EXPECT_TRUE(parse_options({"--help"}).value().help);
}

// Flags of a plugin are what its manifest declares: values set, an argument taken, anything else refused.
TEST(Options, PluginFlagsAreTheManifestsDeclarations) {
    const Manifest m = with_browser_options();
    auto r = parse_options({"1", "--no-enable-browser", "--browsergym-eval-env", "miniwob", "--plugins", "x"});
    ASSERT_TRUE(r) << r.error().message;
    std::map<std::string, std::string> set;
    std::vector<std::string> ignored;
    EXPECT_TRUE(apply_declared_options(r.value().plugin_flags, {&m}, set, ignored));
    EXPECT_TRUE(ignored.empty());
    EXPECT_EQ(set.at("B_ON"), "0");
    EXPECT_EQ(set.at("B_ENV"), "miniwob");
    EXPECT_EQ(r.value().plugins, std::vector<std::string>{"x"});

    // A flag no installed plugin declares is ignored, with its value, and listed (OpenHands' clients pass
    // --no-enable-browser to images without a browser); a declared one missing its value is an error.
    set.clear();
    EXPECT_TRUE(apply_declared_options({"--bogus", "v", "--no-enable-browser", "--other"}, {&m}, set, ignored));
    EXPECT_EQ(ignored, (std::vector<std::string>{"--bogus v", "--other"}));
    EXPECT_EQ(set.at("B_ON"), "0");
    ignored.clear();
    EXPECT_NE(apply_declared_options({"--browsergym-eval-env"}, {&m}, set, ignored).error().message.find("--browsergym-eval-env"), std::string::npos);
    EXPECT_NE(usage_text({&m}).find("--browsergym-eval-env VALUE"), std::string::npos);
}
