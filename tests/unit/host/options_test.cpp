#include "cli/options.hpp"

#include <gtest/gtest.h>

using actionhost::host::parse_options;

TEST(Options, ParsesTheOpenHandsCommandLine) {
    auto r = parse_options({"30000", "--working-dir", "/workspace", "--plugins", "agent_skills", "jupyter", "vscode",
                            "--username", "openhands", "--user-id", "1000", "--no-enable-browser"});
    ASSERT_TRUE(r.options) << r.error;
    EXPECT_EQ(r.options->port, 30000);
    EXPECT_EQ(r.options->working_dir, "/workspace");
    EXPECT_EQ(r.options->plugins, (std::vector<std::string>{"agent_skills", "jupyter", "vscode"}));
    EXPECT_EQ(r.options->username, "openhands");
    EXPECT_EQ(r.options->user_id, 1000);
    EXPECT_FALSE(r.options->enable_browser);
}

TEST(Options, DefaultsAreOpenHands) {
    auto r = parse_options({"8000"});
    ASSERT_TRUE(r.options);
    EXPECT_EQ(r.options->username, "openhands");
    EXPECT_EQ(r.options->user_id, 1000);
    EXPECT_TRUE(r.options->enable_browser);
    EXPECT_EQ(r.options->bind_host, "0.0.0.0");
}

TEST(Options, RejectsBadInputWithAReason) {
    EXPECT_EQ(parse_options({}).error, "PORT is required");
    EXPECT_NE(parse_options({"abc"}).error.find("PORT must be an integer"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--bogus"}).error.find("unknown option --bogus"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--plugins"}).error.find("--plugins needs"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--user-id", "-3"}).error.find("--user-id"), std::string::npos);
    EXPECT_NE(parse_options({"1", "--no-enable-browser", "--browsergym-eval-env", "x"}).error.find("browser"), std::string::npos);
}

TEST(Options, SettingsAndOurExtensions) {
    auto r = parse_options({"0", "--set", "A=b=c", "--plugin-dir", "/x", "--port-file", "/tmp/p", "--host", "127.0.0.1"});
    ASSERT_TRUE(r.options) << r.error;
    EXPECT_EQ(r.options->settings.at("A"), "b=c");
    EXPECT_EQ(r.options->plugin_dirs, std::vector<std::string>{"/x"});
    EXPECT_TRUE(parse_options({"--list-plugins"}).options->list_plugins);
    EXPECT_TRUE(parse_options({"--help"}).options->help);
}
