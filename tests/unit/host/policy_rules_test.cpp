// The built-in rules attacked: a denied command smuggled past a naive match, a denied path reached by
// another name; and the confirmation registry's three outcomes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "policy/command_forms.hpp"
#include "policy/confirmations.hpp"
#include "policy/rules_policy.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::host;
namespace fs = std::filesystem;

namespace {

RulesPolicy rules(const std::string &commands, const std::string &paths) {
    auto r = RulesPolicy::from_config([&](const std::string &k) -> const char * {
        if (k == "security.deny_commands") return commands.c_str();
        if (k == "security.deny_paths") return paths.c_str();
        return nullptr;
    });
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return std::move(r).value();
}

PolicyDecision run(const RulesPolicy &p, const std::string &command) {
    return p.check("run", {{"command", command}}, "/tmp");
}

}  // namespace

TEST(PolicyRules, DeniesACommandAndNamesTheRule) {
    const RulesPolicy p = rules(R"(["^git push", "rm -rf /"])", "[]");
    const PolicyDecision d = run(p, "rm -rf /");
    EXPECT_EQ(d.verdict, PolicyVerdict::Deny);
    EXPECT_EQ(d.rule, "deny_commands[1] (`rm -rf /`)");
    EXPECT_EQ(d.module, "rules");
    EXPECT_EQ(run(p, "echo hi").verdict, PolicyVerdict::Allow);
    EXPECT_EQ(run(p, "ls /").verdict, PolicyVerdict::Allow);
}

TEST(PolicyRules, SmuggledCommandsAreStillDenied) {
    const RulesPolicy p = rules(R"(["^rm -rf /", "^git push"])", "[]");
    for (const char *cmd : {"rm -rf /", "r''m -rf /", "\"rm\" -rf /", "r\\m -rf /", "rm \\\n-rf /", "rm${IFS}-rf /",
                            "rm$IFS-rf /", "echo x; rm -rf /", "echo x && rm -rf /", "echo x\nrm -rf /",
                            "bash -c 'rm -rf /'", "sh -c \"rm -rf /\"", "bash -lc 'rm -rf /'", "sudo rm -rf /",
                            "sudo -u root rm -rf /", "env X=1 rm -rf /", "X=1 rm -rf /", "echo $(rm -rf /)",
                            "echo `rm -rf /`", "(rm -rf /)", "true | rm -rf /", "nohup rm   -rf /", "timeout 5 rm -rf /",
                            "  git push origin main", "cd x && git push"}) {
        EXPECT_EQ(run(p, cmd).verdict, PolicyVerdict::Deny) << cmd;
    }
    EXPECT_EQ(run(p, "echo rm -rf /").verdict, PolicyVerdict::Allow) << "an anchored pattern keeps its anchor";
    EXPECT_EQ(run(p, "git status").verdict, PolicyVerdict::Allow);
}

TEST(PolicyRules, OnlyRunCommandsAreMatched) {
    const RulesPolicy p = rules(R"(["secret"])", "[]");
    EXPECT_EQ(p.check("read", {{"path", "/tmp/secret"}}, "/tmp").verdict, PolicyVerdict::Allow);
}

TEST(PolicyRules, HugeCommandsMatchInLinearTime) {
    // A pattern that makes a backtracking engine take exponential time (or overflow std::regex's stack).
    const RulesPolicy p = rules(R"(["(a+)+$b", "(x|x)*y"])", "[]");
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(run(p, std::string(200000, 'a') + "!").verdict, PolicyVerdict::Allow);
    EXPECT_EQ(run(p, std::string(200000, 'x')).verdict, PolicyVerdict::Allow);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

TEST(PolicyRules, InvalidSettingsAreRefusedWithTheirName) {
    auto bad = [](const std::string &commands, const std::string &paths) {
        auto r = RulesPolicy::from_config([&](const std::string &k) -> const char * {
            return k == "security.deny_commands" ? commands.c_str() : k == "security.deny_paths" ? paths.c_str() : nullptr;
        });
        return r ? std::string() : r.error().message;
    };
    EXPECT_NE(bad(R"(["ok", "(unclosed"])", "[]").find("security.deny_commands[1] `(unclosed` is not a valid"), std::string::npos);
    EXPECT_NE(bad("rm -rf /", "[]").find("must be a JSON list of strings"), std::string::npos);
    EXPECT_NE(bad("[]", R"(["relative/x"])").find("security.deny_paths[0] `relative/x` must be an absolute path"),
              std::string::npos);
}

TEST(PolicyRules, DeniedPathsAreResolvedBeforeTheyAreMatched) {
    actionhost::testing::TempDir tmp;
    const fs::path root = tmp.path();
    fs::create_directories(root / "secret" / "inner");
    fs::create_directories(root / "ws" / "sub");
    std::ofstream(root / "secret" / "key") << "k";
    fs::create_symlink(root / "secret", root / "ws" / "alias");
    fs::create_symlink(root / "secret" / "key", root / "ws" / "keylink");
    const RulesPolicy p = rules("[]", "[\"" + (root / "secret").string() + "\", \"/etc/*.conf\"]");
    const std::string ws = (root / "ws").string();
    auto on = [&](const std::string &path) { return p.check("write", {{"path", path}}, ws).verdict; };
    for (const std::string &path : std::vector<std::string>{(root / "secret").string(), (root / "secret" / "key").string(),
                                   (root / "secret" / "new").string(), "../secret/key", "sub/../../secret/inner/x",
                                   "alias/key", "alias/new-file", "keylink", (root / "secret/").string(),
                                   (root / "ws" / ".." / "secret" / "key").string(), "/etc/ld.so.conf", "/etc/x.conf/y"})
        EXPECT_EQ(on(path), PolicyVerdict::Deny) << path;
    for (const std::string &path : std::vector<std::string>{(root / "secretive").string(), "sub/file", (root / "ws").string(), "/etc/passwd"})
        EXPECT_EQ(on(path), PolicyVerdict::Allow) << path;
    EXPECT_EQ(p.check("edit", {{"path", "alias/key"}}, ws).rule, "deny_paths[0] (`" + (root / "secret").string() + "`)");
}

TEST(PolicyCommandForms, SplitsAndUnwraps) {
    const auto forms = command_forms("sudo bash -c 'a; b' && env X=1 c");
    for (const char *f : {"a", "b", "c"})
        EXPECT_NE(std::find(forms.begin(), forms.end(), f), forms.end()) << f;
}

TEST(PolicyConfirmations, ConfirmedRejectedAndTimedOut) {
    Confirmations c;
    for (const bool yes : {true, false}) {
        std::promise<std::string> id;
        auto waiting = std::async(std::launch::async, [&] {
            return c.wait({}, std::chrono::seconds(10), [&](const Confirmations::Pending &p) { id.set_value(p.id); });
        });
        const std::string the_id = id.get_future().get();
        EXPECT_EQ(c.pending_json().size(), 1u);
        EXPECT_FALSE(c.answer("pa-unknown", true));
        EXPECT_TRUE(c.answer(the_id, yes));
        EXPECT_EQ(waiting.get(), yes ? Confirmations::Outcome::Confirmed : Confirmations::Outcome::Rejected);
        EXPECT_FALSE(c.answer(the_id, yes)) << "an answered action cannot be answered again";
    }
    std::string late;
    EXPECT_EQ(c.wait({}, std::chrono::milliseconds(50), [&](const Confirmations::Pending &p) { late = p.id; }),
              Confirmations::Outcome::TimedOut);
    EXPECT_FALSE(c.answer(late, true)) << "a timed-out action cannot be confirmed afterwards";
    EXPECT_TRUE(c.pending_json().empty());
    c.stop();
    EXPECT_EQ(c.wait({}, std::chrono::seconds(10), nullptr), Confirmations::Outcome::Stopped);
}
