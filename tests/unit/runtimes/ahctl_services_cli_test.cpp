// ahctl's options and commands of the runtime base services: --env, --repo, env/cp/git/microagents.
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

TEST(AhctlServicesCli, EnvAndRepoOptions) {
    Options o = parse({"--env", "A=1", "-e", "B=x=y", "--env=C=", "--repo", "file:///r.git@dev", "run", "--", "true"});
    EXPECT_EQ(o.env, (std::vector<std::pair<std::string, std::string>>{{"A", "1"}, {"B", "x=y"}, {"C", ""}}));
    EXPECT_EQ(o.repo, "file:///r.git@dev");
    EXPECT_EQ(o.command, "run");
    EXPECT_THROW(parse({"--env", "NOEQUALS", "run"}), UsageError);
    EXPECT_THROW(parse({"--env", "=v", "run"}), UsageError);
}

TEST(AhctlServicesCli, CommandsAndTheirArguments) {
    Options env = parse({"env", "set", "K=a b", "L=$x"});
    EXPECT_EQ(env.command, "env");
    EXPECT_EQ(env.args, (std::vector<std::string>{"set", "K=a b", "L=$x"}));
    Options cp = parse({"cp", "./src", "sandbox:/workspace"});
    EXPECT_EQ(cp.command, "cp");
    EXPECT_EQ(cp.args, (std::vector<std::string>{"./src", "sandbox:/workspace"}));
    Options git = parse({"git", "diff", "a b.txt", "--cwd", "repo", "--json"});
    EXPECT_EQ(git.command, "git");
    EXPECT_TRUE(git.json);
    EXPECT_EQ(git.args, (std::vector<std::string>{"diff", "a b.txt"}));
    EXPECT_EQ(git.named["--cwd"], (std::vector<std::string>{"repo"}));
    EXPECT_EQ(parse({"microagents"}).command, "microagents");
}

TEST(AhctlServicesCli, HelpDocumentsTheSandboxNotation) {
    auto cp = help_text("cp");
    ASSERT_TRUE(cp.has_value());
    EXPECT_NE(cp->find("sandbox:PATH"), std::string::npos);
    for (const char *c : {"env", "git", "microagents"}) EXPECT_TRUE(help_text(c).has_value()) << c;
    auto overview = help_text("");
    ASSERT_TRUE(overview.has_value());
    for (const char *c : {"env set", "cp SRC DST", "git changes", "microagents", "--env", "--repo"})
        EXPECT_NE(overview->find(c), std::string::npos) << c;
}
