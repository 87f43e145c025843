// The bash plugin over HTTP against the real host: OpenHands' command semantics and the cases of
// its tests/runtime/test_bash.py that complete without timeouts.
#include <pwd.h>
#include <unistd.h>

#include <chrono>

#include "bash_test_util.hpp"

using namespace bashtest;

TEST(BashCommands, EchoObservationShapeAndMetadata) {
    BashHost h;
    const json obs = h.run("echo hi");
    EXPECT_EQ(obs["observation"], "run");
    EXPECT_EQ(obs["message"], "Command `echo hi` executed with exit code 0.");
    EXPECT_EQ(content(obs), "hi");  // the typed command is not echoed back
    EXPECT_EQ(obs["success"], true);
    EXPECT_EQ(obs["extras"]["command"], "echo hi");
    EXPECT_EQ(obs["extras"]["hidden"], false);
    const json &m = obs["extras"]["metadata"];
    EXPECT_EQ(m["exit_code"], 0);
    EXPECT_EQ(m["pid"], -1);
    const passwd *pw = getpwuid(getuid());
    EXPECT_EQ(m["username"], pw->pw_name);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string short_host(host);
    short_host = short_host.substr(0, short_host.find('.'));
    EXPECT_EQ(m["hostname"], short_host);
    EXPECT_EQ(m["working_dir"], h.wd());
    EXPECT_TRUE(m["py_interpreter_path"].is_string());
    EXPECT_EQ(m["prefix"], "");
    EXPECT_EQ(m["suffix"], "\n[The command completed with exit code 0.]");
}

TEST(BashCommands, EmptyWorkingDirListsTotalZero) {
    BashHost h;
    EXPECT_EQ(content(h.run("ls -l")), "total 0");
}

TEST(BashCommands, CdExportsAliasesAndFunctionsPersist) {
    BashHost h;
    EXPECT_EQ(exit_code(h.run("mkdir -p sub/dir && cd sub/dir")), 0);
    const json pwd = h.run("pwd");
    EXPECT_EQ(content(pwd), h.wd() + "/sub/dir");
    EXPECT_EQ(pwd["extras"]["metadata"]["working_dir"], h.wd() + "/sub/dir");
    h.run("export GREETING=hello");
    h.run("alias say='echo said'");
    h.run("twice() { echo \"$1$1\"; }");
    EXPECT_EQ(content(h.run("echo $GREETING")), "hello");
    EXPECT_EQ(content(h.run("say x")), "said x");
    EXPECT_EQ(content(h.run("twice ab")), "abab");
}

TEST(BashCommands, UnknownCommandIs127) {
    BashHost h;
    const json obs = h.run("nonexistent_command");
    EXPECT_EQ(exit_code(obs), 127);
    EXPECT_TRUE(contains(content(obs), "nonexistent_command: command not found"));
    EXPECT_EQ(obs["success"], false);
    EXPECT_EQ(obs["message"], "Command `nonexistent_command` executed with exit code 127.");
}

TEST(BashCommands, MultipleCommandsAreRefusedWithTheExactMessage) {
    BashHost h;
    const json obs = h.run("ls\npwd");
    EXPECT_EQ(obs["observation"], "error");
    const std::string expected =
        "ERROR: Cannot execute multiple commands at once.\nPlease run each command separately OR chain them into a "
        "single command via && or ;\nProvided commands:\n(1) ls\n(2) pwd";
    EXPECT_EQ(content(obs), expected);
    EXPECT_EQ(obs["message"], expected);
    // Heredoc followed by another command: two commands.
    const json two = h.run("cat <<EOF\nx\nEOF\necho after");
    EXPECT_EQ(two["observation"], "error");
    EXPECT_TRUE(contains(content(two), "(1) cat <<EOF\nx\nEOF\n(2) echo after"));
    // Chained commands are one.
    EXPECT_EQ(content(h.run("echo a && echo b; echo c")), "a\nb\nc");
}

TEST(BashCommands, ContinuationsQuotedNewlinesAndBlankLines) {
    BashHost h;
    EXPECT_EQ(content(h.run("echo \\\n    -e 'foo'")), "foo");
    const json quoted = h.run("echo \"hello\nworld\"");
    EXPECT_EQ(content(quoted), "hello\nworld");  // no PS2 '>' continuation prompt in the output
    EXPECT_EQ(content(h.run("echo -e 'a\\n\\n\\nz'")), "a\n\n\nz");
    EXPECT_EQ(content(h.run("echo 'first\n\nthird'")), "first\n\nthird");
}

TEST(BashCommands, LoopsAndHeredocs) {
    BashHost h;
    EXPECT_EQ(content(h.run("for i in {1..3}; do echo $i; done")), "1\n2\n3");
    EXPECT_EQ(content(h.run("for i in a b\ndo\n  echo \"item $i\"\ndone")), "item a\nitem b");
    EXPECT_EQ(content(h.run("cat <<EOF\nline1\n\nline3 $((1+1))\nEOF")), "line1\n\nline3 2");
    EXPECT_EQ(content(h.run("cat <<'EOF' > script.sh\necho \"from $0\"\nEOF")), "");
    EXPECT_EQ(content(h.run("cat script.sh")), "echo \"from $0\"");
    EXPECT_EQ(content(h.run("if [ -f script.sh ]; then\n  echo yes\nelse\n  echo no\nfi")), "yes");
}

TEST(BashCommands, FindExecAndEscapedSeparatorsRunAsTyped) {
    BashHost h;
    h.run("mkdir -p test_dir && touch test_dir/file1.txt test_dir/file2.txt");
    const std::string found = content(h.run("find test_dir -name '*.txt' -exec echo {} \\; | sort"));
    EXPECT_EQ(found, "test_dir/file1.txt\ntest_dir/file2.txt");
    EXPECT_EQ(content(h.run("echo a\\;b")), "a;b");  // the peer runs `echo a\` and `b`
}

TEST(BashCommands, OutputKeepsTabsUnicodeAndCommentOnlyCommandsWork) {
    BashHost h;
    EXPECT_EQ(content(h.run("printf 'a\\tb\\n'")), "a\tb");
    EXPECT_EQ(content(h.run("echo 'héllo → 世界'")), "héllo → 世界");
    const json comment = h.run("# just a note");
    EXPECT_EQ(comment["observation"], "run");
    EXPECT_EQ(exit_code(comment), 0);
    EXPECT_EQ(content(comment), "");
    EXPECT_EQ(content(h.run("printf '\\033[31mred\\033[0m\\n'")), "red");  // colours stripped, like a screen capture
}

TEST(BashCommands, MarkerLookalikesInOutputDoNotEndTheCommand) {
    BashHost h;
    const json obs =
        h.run("printf '###PS1JSON###\\n{\"exit_code\": \"0\"}\\n###PS1END###\\n'; env | grep -c PROMPT_COMMAND; false");
    EXPECT_EQ(exit_code(obs), 1);
    EXPECT_TRUE(contains(content(obs), "###PS1JSON###"));
    EXPECT_TRUE(contains(content(obs), "###PS1END###\n1"));
    EXPECT_EQ(exit_code(h.run("set | grep -c PS1 >/dev/null; true")), 0);
}

TEST(BashCommands, LongCommandLinesBeyondTheTerminalLineLimit) {
    BashHost h;
    const std::string word(6000, 'x');
    const json obs = h.run("echo " + word + " | wc -c");
    EXPECT_EQ(content(obs), "6001");
    EXPECT_EQ(obs["extras"]["command"], "echo " + word + " | wc -c");
    EXPECT_EQ(content(h.run("echo still here")), "still here");
}

TEST(BashCommands, ExitEndsTheShellAndTheNextActionGetsAFreshOne) {
    BashHost h;
    h.run("mkdir -p keep && cd keep && export GONE=1");
    const json bye = h.run("exit 3");
    EXPECT_EQ(exit_code(bye), 3);
    const json next = h.run("echo \"[$GONE]\"; pwd");
    EXPECT_EQ(content(next), "[]\n" + h.wd() + "/keep");  // a new shell, in the last directory
    EXPECT_EQ(exit_code(next), 0);
}

TEST(BashCommands, IdleEmptyCommandAndIdleInputAreErrors) {
    BashHost h;
    const json empty = h.run("");
    EXPECT_EQ(empty["observation"], "run");
    EXPECT_EQ(content(empty), "ERROR: No previous running command to retrieve logs from.");
    EXPECT_EQ(exit_code(empty), -1);
    EXPECT_EQ(empty["extras"]["command"], "");
    EXPECT_TRUE(empty["extras"]["metadata"]["working_dir"].is_null());
    const json input = h.input("hello");
    EXPECT_EQ(content(input), "ERROR: No previous running command to interact with.");
    EXPECT_EQ(exit_code(input), -1);
}

TEST(BashCommands, StaticCommandsRunInAFreshShellInCwd) {
    BashHost h;
    h.run("mkdir -p a/b && export ONLY_IN_SESSION=1");
    RunOpts o;
    o.is_static = true;
    o.cwd = h.wd() + "/a/b";
    const json obs = h.run("pwd; echo \"[$ONLY_IN_SESSION]\"; cd /; exit 4", o);
    EXPECT_EQ(content(obs), h.wd() + "/a/b\n[]");
    EXPECT_EQ(exit_code(obs), 4);
    EXPECT_EQ(suffix(obs), "\n[The command completed with exit code 4.]");
    EXPECT_EQ(content(h.run("pwd")), h.wd());  // the persistent shell did not move
    RunOpts rel;
    rel.is_static = true;
    rel.cwd = "a";
    EXPECT_EQ(content(h.run("pwd", rel)), h.wd() + "/a");
    RunOpts noexist;
    noexist.is_static = true;
    noexist.cwd = h.wd() + "/missing";
    EXPECT_EQ(h.run("pwd", noexist)["observation"], "error");
}

// The fresh shell's wait watches its output, its exit and two timeouts at once: output moves the
// no-change timeout on, silence past it ends the command, and a hard timeout ends it whatever it prints.
TEST(BashCommands, StaticCommandsEndOnTheirTimeoutsAndOutputPostponesTheNoChangeOne) {
    BashHost h(1);
    RunOpts quiet_later;
    quiet_later.is_static = true;
    auto start = std::chrono::steady_clock::now();
    const json soft = h.run("for i in 1 2 3 4; do echo $i; sleep 0.6; done; sleep 30", quiet_later);
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(content(soft), "1\n2\n3\n4");  // output every 0.6 s for 1.8 s: the 1 s timeout waited
    EXPECT_EQ(suffix(soft), "\n[The command has no new output after 1 seconds. " + kTimeoutHelp + "]");
    EXPECT_EQ(exit_code(soft), -1);
    EXPECT_GE(took, std::chrono::milliseconds(2700));  // the last output (1.8 s) + 1 s
    EXPECT_LT(took, std::chrono::seconds(20));

    RunOpts hard;
    hard.is_static = true;
    hard.blocking = true;
    hard.timeout = 0.5;
    start = std::chrono::steady_clock::now();
    const json timed_out = h.run("while :; do echo tick; sleep 0.1; done", hard);
    took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(suffix(timed_out), "\n[The command timed out after 0.5 seconds. " + kTimeoutHelp + "]");
    EXPECT_EQ(exit_code(timed_out), -1);
    EXPECT_TRUE(contains(content(timed_out), "tick"));
    EXPECT_LT(took, std::chrono::seconds(20));
}

TEST(BashCommands, HiddenOutputIsNotTruncated) {
    BashHost h;
    RunOpts o;
    o.hidden = true;
    const json obs = h.run("seq 1 20000", o);
    EXPECT_EQ(obs["extras"]["hidden"], true);
    const std::string c = content(obs);
    EXPECT_FALSE(contains(c, "Observation truncated"));
    EXPECT_EQ(c.substr(0, 4), "1\n2\n");
    EXPECT_EQ(c.substr(c.size() - 6), "\n20000");
    const json visible = h.run("seq 1 20000");
    EXPECT_TRUE(contains(content(visible), "\n[... Observation truncated due to length ...]\n"));
}

TEST(BashCommands, FileOwnerIsTheShellUser) {
    BashHost h;
    const passwd *pw = getpwuid(getuid());
    EXPECT_EQ(content(h.run("whoami")), pw->pw_name);
    EXPECT_EQ(content(h.run("touch owned && stat -c %U owned")), pw->pw_name);
    EXPECT_EQ(content(h.run("echo $HOME")), h.home());
}

// The prompt carries the shell's PATH and the plugin finds python on it (see prompt_marker.hpp): it must
// follow a PATH change, a deleted interpreter, one that appears while PATH stays, a relative PATH entry,
// `set -u`, and a nested interactive bash, as `which python` in that shell would.
TEST(BashCommands, ThePythonOfThePromptFollowsPathChangesAndDeletions) {
    BashHost h;
    const auto python_of = [&](const std::string &command) {
        return h.run(command)["extras"]["metadata"]["py_interpreter_path"].get<std::string>();
    };
    h.run("mkdir -p v1/bin v2/bin && printf '#!/bin/sh\\n' > v1/bin/python && cp v1/bin/python v2/bin/python && "
          "chmod +x v1/bin/python v2/bin/python");
    EXPECT_EQ(python_of("export PATH=\"$PWD/v1/bin:$PATH\""), h.wd() + "/v1/bin/python");
    EXPECT_EQ(python_of("export PATH=\"$PWD/v2/bin:$PATH\""), h.wd() + "/v2/bin/python");
    EXPECT_EQ(python_of("true"), h.wd() + "/v2/bin/python");
    EXPECT_EQ(python_of("rm v2/bin/python"), h.wd() + "/v1/bin/python");
    EXPECT_EQ(python_of("cp v1/bin/python v2/bin/python"), h.wd() + "/v2/bin/python");  // PATH unchanged
    EXPECT_EQ(python_of("chmod -x v2/bin/python"), h.wd() + "/v1/bin/python");
    // A relative entry is found from the shell's directory, spelt as the entry is (as `which` prints it).
    EXPECT_EQ(python_of("export PATH=\"bin:$PATH\"; cd v2"), h.wd() + "/v1/bin/python");
    EXPECT_EQ(python_of("chmod +x bin/python"), "bin/python");
    EXPECT_EQ(content(h.run("command -v python")), "bin/python");
    EXPECT_EQ(python_of("cd .. && export PATH=\"${PATH#bin:}\""), h.wd() + "/v2/bin/python");
    const json strict = h.run("set -u; false");
    EXPECT_EQ(exit_code(strict), 1);
    EXPECT_EQ(strict["extras"]["metadata"]["py_interpreter_path"], h.wd() + "/v2/bin/python");
    EXPECT_EQ(exit_code(h.run("set +u")), 0);
    // A nested interactive bash shows the same prompt, so its commands end as the outer shell's do.
    const int outer = std::stoi(content(h.run("echo $SHLVL")));
    EXPECT_EQ(exit_code(h.run("bash --norc")), 0);
    EXPECT_EQ(content(h.run("echo inner $SHLVL")), "inner " + std::to_string(outer + 1));
    EXPECT_EQ(exit_code(h.run("exit 4")), 4);
    EXPECT_EQ(content(h.run("echo outer $SHLVL")), "outer " + std::to_string(outer));
}

// PATH is the agent's to set: no value of it may confuse the prompt's other fields, the directory above all.
TEST(BashCommands, NoPathConfusesThePromptsFields) {
    BashHost h;
    h.run("mkdir -p 'sub dir'");
    json r = h.run("cd 'sub dir' && export PATH=$'/usr/bin:/x\\x1fy:/bin\\x1f'");
    EXPECT_EQ(exit_code(r), 0);
    EXPECT_EQ(r["extras"]["metadata"]["working_dir"], h.wd() + "/sub dir");
    r = h.run("set -u; unset PATH; false");
    EXPECT_EQ(exit_code(r), 1);
    EXPECT_EQ(r["extras"]["metadata"]["working_dir"], h.wd() + "/sub dir");
    EXPECT_EQ(r["extras"]["metadata"]["py_interpreter_path"], "");
    EXPECT_EQ(content(r), "");  // no "unbound variable" from the prompt
    r = h.run("PATH=/usr/bin:/bin; set +u; cd .. && echo back");
    EXPECT_EQ(content(r), "back");
    EXPECT_EQ(r["extras"]["metadata"]["working_dir"], h.wd());
}
