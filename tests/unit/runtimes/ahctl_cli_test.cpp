// ahctl's command-line parsing and help.
#include <gtest/gtest.h>

#include "cli.hpp"

using namespace ahctl;

namespace {
Options parse(std::vector<std::string> words) {
    std::vector<char *> argv;
    static std::string name = "ahctl";
    argv.push_back(name.data());
    for (auto &w : words) argv.push_back(w.data());
    return parse_command_line(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(AhctlCli, RunAfterDoubleDash) {
    Options o = parse({"-r", "local", "run", "--timeout", "5", "--", "echo", "--help"});
    EXPECT_EQ(o.command, "run");
    EXPECT_EQ(o.runtime, "local");
    EXPECT_EQ(o.timeout, 5.0);
    EXPECT_FALSE(o.help);  // --help after -- belongs to the command
    EXPECT_EQ(o.args, (std::vector<std::string>{"echo", "--help"}));
}

TEST(AhctlCli, GlobalOptionsAnywhereAndInlineValues) {
    Options o = parse({"edit", "create", "/w/f", "--file-text", "hi", "--runtime=sandbox", "-p", "jupyter,agent_skills", "--set", "sandbox.timeout=9"});
    EXPECT_EQ(o.command, "edit");
    EXPECT_EQ(o.runtime, "sandbox");
    EXPECT_EQ(o.plugins, (std::vector<std::string>{"jupyter", "agent_skills"}));
    EXPECT_EQ(o.args, (std::vector<std::string>{"create", "/w/f"}));
    EXPECT_EQ(o.named["--file-text"], (std::vector<std::string>{"hi"}));
    ASSERT_EQ(o.sets.size(), 1u);
    EXPECT_EQ(o.sets[0].first, "sandbox.timeout");
}

// Unknown options anywhere before `--` are usage errors that name the closest known option.
TEST(AhctlCli, UnknownOptionsAndSuggestions) {
    auto message = [](std::vector<std::string> words) -> std::string {
        try {
            parse(std::move(words));
        } catch (const UsageError &e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(message({"--verbose", "run", "--", "echo"}).find("unknown option --verbose"), std::string::npos);
    EXPECT_NE(message({"run", "--timout", "5", "--", "x"}).find("did you mean --timeout?"), std::string::npos);
    EXPECT_NE(message({"ps", "--foo"}).find("unknown option --foo for ps"), std::string::npos);
    EXPECT_NE(message({"edit", "view", "f", "--old_str", "x"}).find("did you mean --old-str?"), std::string::npos);
    EXPECT_NE(message({"stpo", "x"}).find("did you mean stop?"), std::string::npos);
    EXPECT_NE(message({"read", "f", "--cwd", "x"}).find("unknown option --cwd for read"), std::string::npos)
        << "--cwd is run's and git's, not read's";
    EXPECT_EQ(message({"ps", "--zzzzzzzz"}).find("did you mean"), std::string::npos);
    Options help = parse({"help", "run"});  // a command's name as a word is not a second command
    EXPECT_EQ(help.command, "run");
    EXPECT_TRUE(help.help);
    EXPECT_EQ(parse({"-r", "sandbox", "ps", "-r", "local"}).runtime, "local");  // given twice: the last counts
    EXPECT_EQ(closest_match("--jsn", {"--json", "--jobs"}), "--json");
    EXPECT_EQ(closest_match("--zzzzzz", {"--json"}), "");
}

TEST(AhctlCli, Errors) {
    EXPECT_THROW(parse({"frobnicate"}), UsageError);
    EXPECT_THROW(parse({"run", "--timeout", "abc", "--", "x"}), UsageError);
    EXPECT_THROW(parse({"--config"}), UsageError);
    EXPECT_THROW(parse({"--set", "novalue"}), UsageError);
}

TEST(AhctlCli, HelpEverywhere) {
    EXPECT_TRUE(parse({"--help"}).help);
    Options o = parse({"help", "run"});
    EXPECT_TRUE(o.help);
    EXPECT_EQ(o.command, "run");
    for (const char *c : {"", "run", "ipython", "edit", "read", "write", "exec", "shell", "upload", "download", "start", "ps", "stop", "runtimes"}) {
        auto text = help_text(c);
        ASSERT_TRUE(text.has_value()) << c;
        EXPECT_NE(text->find("Usage: ahctl"), std::string::npos) << c;
    }
    EXPECT_FALSE(help_text("nope").has_value());
}

// The many-sandbox forms: start --count, run --all, --jobs anywhere before `--`.
TEST(AhctlCli, CountJobsAndAllAreGlobalOptions) {
    Options start = parse({"start", "--count", "100", "-j", "8"});
    EXPECT_EQ(start.command, "start");
    EXPECT_EQ(start.count, 100u);
    EXPECT_EQ(start.jobs, 8u);
    EXPECT_TRUE(start.args.empty());
    Options run = parse({"run", "--all", "--jobs=4", "--", "echo", "--all"});
    EXPECT_TRUE(run.all);
    EXPECT_EQ(run.jobs, 4u);
    EXPECT_EQ(run.args, (std::vector<std::string>{"echo", "--all"}));  // after --, the command's own
    EXPECT_TRUE(parse({"stop", "--all"}).all);
    for (const char *bad : {"0", "-3", "many", "1.5", "2000000"}) {
        EXPECT_THROW(parse({"start", "--count", bad}), UsageError) << bad;
        EXPECT_THROW(parse({"stop", "--all", "--jobs", bad}), UsageError) << bad;
    }
}

// ahctl plugin SUB ...: the subcommand and its words positional, its own options by name; --plugin and
// --plugin-key are global (any command that starts a runtime), apart from --plugins and --plugin-dir.
TEST(AhctlCli, PluginCommandsAndTheirOptions) {
    Options install = parse({"plugin", "install", "127.0.0.1:5000/p/hello:1.2.0", "--dir", "/d", "--require-signature", "a.pem,b.pem"});
    EXPECT_EQ(install.command, "plugin");
    EXPECT_EQ(install.args, (std::vector<std::string>{"install", "127.0.0.1:5000/p/hello:1.2.0"}));
    EXPECT_EQ(install.named["--dir"], (std::vector<std::string>{"/d"}));
    EXPECT_EQ(install.named["--require-signature"], (std::vector<std::string>{"a.pem,b.pem"}));
    Options start = parse({"--plugin", "r/p/a:1.0.0", "--plugin", "r/p/b:2.0.0", "--plugin-key", "k.pem", "-p", "bash", "--plugin-dir", "/x", "start"});
    EXPECT_EQ(start.plugin_refs, (std::vector<std::string>{"r/p/a:1.0.0", "r/p/b:2.0.0"}));
    EXPECT_EQ(start.plugin_keys, (std::vector<std::string>{"k.pem"}));
    EXPECT_EQ(start.plugins, (std::vector<std::string>{"bash"}));
    EXPECT_EQ(start.plugin_dirs, (std::vector<std::string>{"/x"}));
    EXPECT_THROW(parse({"run", "--sign", "k.pem", "--", "true"}), UsageError);  // a plugin option elsewhere
    EXPECT_TRUE(help_text("plugin").has_value());
}
