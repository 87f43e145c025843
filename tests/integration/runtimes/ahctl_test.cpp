// ahctl end to end on the local and sandbox runtimes: exit codes, JSON lines, progress, keep-alive.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::TempDir;
using nlohmann::json;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

// Runs `ahctl <args>` (a shell-quoted string) with `input` on stdin and a private state dir.
Result ahctl(const TempDir &dir, const std::string &args, const std::string &input = "") {
    actionhost::testing::write_file(dir / "stdin", input);
    std::string cmd = "HOME='" + dir.path() + "' '" + actionhost::testing::build_path("bin/ahctl") + "' --state-dir '" + dir.path() +
                      "/state' " + args + " < '" + dir.path() + "/stdin' > '" + dir.path() + "/out' 2> '" + dir.path() +
                      "/err'";
    auto r = actionhost::testing::run_process({"/bin/bash", "-c", cmd}, 90);
    Result res;
    res.code = r.exit_code;
    res.out = actionhost::testing::read_file(dir / "out");
    res.err = actionhost::testing::read_file(dir / "err");
    return res;
}

}  // namespace

TEST(Ahctl, RunExitsWithTheCommandsExitCode) {
    TempDir dir("ahctl");
    Result ok = ahctl(dir, "-r local -q run -- 'echo hello world'");
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.out, "hello world\n");
    Result three = ahctl(dir, "-r sandbox -q run -- 'exit 3'");
    EXPECT_EQ(three.code, 3) << three.err;
    Result missing = ahctl(dir, "-r local -q run -- nonexistent_cmd_xyz");
    EXPECT_EQ(missing.code, 127) << missing.err;
}

TEST(Ahctl, ProgressLineOnStderr) {
    TempDir dir("ahctl");
    Result r = ahctl(dir, "-r sandbox run -- true");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("[ahctl] sandbox: starting runtime"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("[ahctl] sandbox: ready "), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(Ahctl, ExecJsonLines) {
    TempDir dir("ahctl");
    std::string input =
        R"({"action":"run","args":{"command":"echo one"}})" "\n"
        "\n"
        R"({"action":{"action":"run","args":{"command":"echo two"}},"session":""})" "\n"
        "not json\n"
        R"({"action":"write","args":{"path":"w.txt","content":"abc"}})" "\n"
        R"({"action":"read","args":{"path":"w.txt"}})" "\n";
    std::filesystem::create_directories(dir / "ws");  // -w never creates it
    Result r = ahctl(dir, "-r local -q -w '" + dir.path() + "/ws' exec", input);
    EXPECT_EQ(r.code, 1) << r.err;  // the bad line counts as a failure
    std::vector<json> lines;
    std::stringstream ss(r.out);
    std::string line;
    while (std::getline(ss, line)) lines.push_back(json::parse(line));
    ASSERT_EQ(lines.size(), 5u) << r.out;
    EXPECT_EQ(lines[0]["content"], "one");
    EXPECT_EQ(lines[1]["content"], "two");
    EXPECT_EQ(lines[2]["observation"], "error");
    EXPECT_NE(lines[2]["content"].get<std::string>().find("Line 4"), std::string::npos);
    EXPECT_EQ(lines[3]["observation"], "write");
    EXPECT_EQ(lines[4]["content"], "abc\n");
}

TEST(Ahctl, EditAndReadCommands) {
    TempDir dir("ahctl");
    std::filesystem::create_directories(dir / "ws");
    std::string ws = "-r local -q -w '" + dir.path() + "/ws' ";
    Result created = ahctl(dir, ws + "edit create " + dir.path() + "/ws/f.txt --file-text 'alpha\nbeta'");
    EXPECT_EQ(created.code, 0) << created.out << created.err;
    Result replaced = ahctl(dir, ws + "edit str_replace " + dir.path() + "/ws/f.txt --old-str beta --new-str gamma");
    EXPECT_EQ(replaced.code, 0) << replaced.out << replaced.err;
    Result read = ahctl(dir, ws + "read " + dir.path() + "/ws/f.txt");
    EXPECT_EQ(read.out, "alpha\ngamma");  // create writes file_text as given (no newline added)
    Result bad = ahctl(dir, ws + "edit str_replace " + dir.path() + "/ws/f.txt --old-str nothere --new-str x");
    EXPECT_EQ(bad.code, 1) << bad.out;
    // A failed edit is told on stderr, as a failed read is, without OpenHands' "ERROR:" line.
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err.rfind("ahctl: error: No replacement was performed, old_str `nothere` did not appear", 0), 0u) << bad.err;
    Result missing = ahctl(dir, ws + "read " + dir.path() + "/ws/nope.txt");
    EXPECT_EQ(missing.code, 1);
    EXPECT_EQ(missing.out, "");
    EXPECT_EQ(missing.err.rfind("ahctl: error: File not found", 0), 0u) << missing.err;
    // An editor command that does not exist is a usage error, found before a runtime starts.
    Result unknown = ahctl(dir, ws + "edit frob " + dir.path() + "/ws/f.txt");
    EXPECT_EQ(unknown.code, 2) << unknown.out << unknown.err;
    EXPECT_NE(unknown.err.find("unknown edit command frob: view, create, str_replace, insert or undo_edit"), std::string::npos)
        << unknown.err;
    EXPECT_EQ(unknown.err.find("starting runtime"), std::string::npos) << unknown.err;
    EXPECT_EQ(ahctl(dir, ws + "read " + dir.path() + "/ws/f.txt").out, "alpha\ngamma");  // the file is untouched
}

TEST(Ahctl, UsageConfigAndHelpExitCodes) {
    TempDir dir("ahctl");
    EXPECT_EQ(ahctl(dir, "--help").code, 0);
    Result help = ahctl(dir, "run --help");
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find("Usage: ahctl [options] run"), std::string::npos);
    EXPECT_EQ(ahctl(dir, "frobnicate").code, 2);
    Result unknown = ahctl(dir, "-r vendor.Nope run -- true");
    EXPECT_EQ(unknown.code, 3);
    EXPECT_NE(unknown.err.find("Runtime vendor.Nope not supported, known are: ["), std::string::npos) << unknown.err;
    actionhost::testing::write_file(dir / "bad.toml", "[sandbox]\nbogus = 1\n");
    EXPECT_EQ(ahctl(dir, "-c '" + dir.path() + "/bad.toml' run -- true").code, 3);
    // A mistyped -c naming a directory is a configuration error, not an empty configuration.
    Result directory = ahctl(dir, "-c '" + dir.path() + "' -r local run -- true");
    EXPECT_EQ(directory.code, 3) << directory.err;
    EXPECT_NE(directory.err.find("it is a directory"), std::string::npos) << directory.err;
    // What an OpenHands config.toml sets and actionhost does not use is told once per command.
    actionhost::testing::write_file(dir / "oh.toml", "[core]\nmax_iterations = 3\nfrobnicate = 1\n[llm]\nmodel = \"m\"\n");
    Result told = ahctl(dir, "-c '" + dir.path() + "/oh.toml' -r local run -- true");
    EXPECT_EQ(told.code, 0) << told.err;
    const std::string line =
        "ahctl: ignoring OpenHands settings actionhost does not use: core.frobnicate (not OpenHands' either), "
        "core.max_iterations, [llm]\n";
    const size_t at = told.err.find(line);
    EXPECT_NE(at, std::string::npos) << told.err;
    EXPECT_EQ(told.err.find("ahctl: ignoring", at + 1), std::string::npos) << "told twice:\n" << told.err;
}

TEST(Ahctl, StartPsStopKeptRuntime) {
    TempDir dir("ahctl");
    for (const std::string backend : {"local", "sandbox"}) {
        Result started = ahctl(dir, "-r " + backend + " -q start");
        ASSERT_EQ(started.code, 0) << started.err;
        std::string sid = started.out.substr(0, started.out.find('\n'));
        ASSERT_FALSE(sid.empty());
        Result first = ahctl(dir, "-q -s " + sid + " run -- 'export KEPT=yes; cd /tmp'");
        EXPECT_EQ(first.code, 0) << first.err;
        Result second = ahctl(dir, "-q -s " + sid + " run -- 'echo $KEPT $(pwd)'");
        EXPECT_EQ(second.out, "yes /tmp\n") << second.err;  // same bash session: state kept
        Result ps = ahctl(dir, "ps");
        EXPECT_NE(ps.out.find(sid), std::string::npos) << ps.out;
        EXPECT_NE(ps.out.find("alive"), std::string::npos) << ps.out;
        Result stop = ahctl(dir, "stop " + sid);
        EXPECT_EQ(stop.code, 0) << stop.err;
        Result after = ahctl(dir, "ps");
        EXPECT_EQ(after.out.find(sid), std::string::npos) << after.out;
    }
}

#ifdef AH_WITH_CLI_RUNTIME
// `ahctl --runtime cli`: no server; the plugins run inside ahctl itself.
TEST(Ahctl, CliRuntimeRunsInsideAhctl) {
    TempDir dir("ahctl");
    Result hi = ahctl(dir, "--runtime cli -q run -- 'echo hi'");
    EXPECT_EQ(hi.code, 0) << hi.err;
    EXPECT_EQ(hi.out, "hi\n");
    Result three = ahctl(dir, "-r cli -q run -- 'echo a\nexit 3'");  // newline-separated: allowed here
    EXPECT_EQ(three.code, 3) << three.err;
    EXPECT_EQ(three.out, "a\n");
    Result progress = ahctl(dir, "-r cli run -- true");
    EXPECT_NE(progress.err.find("[ahctl] cli: ready "), std::string::npos) << progress.err;
    std::string input = R"({"action":"run","args":{"command":"cd /tmp && export X=1"}})" "\n"
                        R"({"action":"run","args":{"command":"echo $X $PWD"}})" "\n"
                        R"({"action":"run","args":{"command":"C-c","is_input":true}})" "\n";
    std::filesystem::create_directories(dir / "ws");
    Result exec = ahctl(dir, "-r cli -q -w '" + dir.path() + "/ws' exec", input);
    EXPECT_EQ(exec.code, 0) << exec.err;
    std::vector<json> lines;
    std::istringstream in(exec.out);
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
    ASSERT_EQ(lines.size(), 3u) << exec.out;
    EXPECT_EQ(lines[1].value("content", ""), "1 /tmp");
    EXPECT_EQ(lines[2].value("observation", ""), "error");
    EXPECT_EQ(lines[2]["extras"].value("error_id", ""), "AGENT_ERROR$BAD_ACTION");
    // RUNTIME=cli selects it too (OpenHands' env override of [core] runtime); newline-separated commands show
    // it is cli.
    auto r = actionhost::testing::run_process(
        {"/bin/bash", "-c", "RUNTIME=cli HOME='" + dir.path() + "' '" + actionhost::testing::build_path("bin/ahctl") +
                                "' --state-dir '" + dir.path() + "/state' -q run -- 'echo via\necho env'"},
        90);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.output.find("via\nenv"), std::string::npos) << r.output;
}
#endif

// `ahctl port`, `ahctl ui` and `ahctl net` on a kept-alive sandbox, `--publish` at start; bad words are usage errors
// (exit 2) before any sandbox starts.
TEST(Ahctl, PortUiNetAndPublish) {
    TempDir dir("ahctl");
    EXPECT_EQ(ahctl(dir, "-r sandbox --publish 1:2:3:4 run -- true").code, 2);
    EXPECT_EQ(ahctl(dir, "-r sandbox --publish 0 run -- true").code, 2);
    EXPECT_EQ(ahctl(dir, "-r sandbox --publish http run -- true").code, 2);
    EXPECT_EQ(ahctl(dir, "port 8000").code, 2);  // no sandbox named
    Result started = ahctl(dir, "-r sandbox -q --publish 8000 start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    EXPECT_NE(started.err.find("port 8000 of " + sid + " is published at 127.0.0.1:"), std::string::npos) << started.err;
    Result published = ahctl(dir, "-q -s " + sid + " port 9000");
    EXPECT_EQ(published.code, 0) << published.err;
    EXPECT_EQ(published.out.rfind("127.0.0.1:", 0), 0u) << published.out;
    Result again = ahctl(dir, "-q port " + sid + " 9000");  // the session as the first word
    EXPECT_EQ(again.code, 1);
    EXPECT_NE(again.err.find("already published"), std::string::npos) << again.err;
    Result listed = ahctl(dir, "-q -s " + sid + " port");
    EXPECT_NE(listed.out.find("8000 127.0.0.1:"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("9000 " + published.out), std::string::npos) << listed.out;
    EXPECT_EQ(ahctl(dir, "-q -s " + sid + " port --rm 9000 8000").code, 0);
    EXPECT_EQ(ahctl(dir, "-q -s " + sid + " port").out.find("9000"), std::string::npos);
    Result ui = ahctl(dir, "-q -s " + sid + " ui");
    EXPECT_EQ(ui.code, 0) << ui.err;
    EXPECT_EQ(ui.out.rfind("http://127.0.0.1:", 0), 0u) << ui.out;
    EXPECT_NE(ui.out.find("/ui#key="), std::string::npos) << ui.out;
    // --open: the browser (a stand-in xdg-open that records its words) gets a private page, never the key.
    std::filesystem::create_directories(dir / "bin");
    actionhost::testing::write_file(dir / "bin/xdg-open", "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + dir.path() + "/opened'\n");
    std::filesystem::permissions(dir / "bin/xdg-open", std::filesystem::perms::owner_all);
    const std::string key = ui.out.substr(ui.out.find("#key=") + 5, 32);
    auto opened = actionhost::testing::run_process(
        {"/bin/bash", "-c", "PATH='" + dir.path() + "/bin':$PATH HOME='" + dir.path() + "' '" + actionhost::testing::build_path("bin/ahctl") +
                                "' --state-dir '" + dir.path() + "/state' -q -s " + sid + " ui --open"},
        60);
    EXPECT_EQ(opened.exit_code, 0) << opened.output;
    const std::string page = actionhost::testing::read_file(dir / "opened");
    EXPECT_EQ(page.find(key), std::string::npos) << "the key in xdg-open's command line";
    ASSERT_EQ(page.rfind("/tmp/ahctl-ui-", 0), 0u) << page;
    const std::string page_path = page.substr(0, page.find('\n'));
    struct stat st{};
    ASSERT_EQ(stat(page_path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_NE(actionhost::testing::read_file(page_path).find("#key=" + key), std::string::npos);
    std::filesystem::remove_all(page_path.substr(0, page_path.rfind('/')));
    // net: the mode of a sandbox without a network, a policy change refused there, bad words.
    EXPECT_EQ(ahctl(dir, "-q -s " + sid + " net").out, "mode: none\n");
    Result no_policy = ahctl(dir, "-q net " + sid + " allow 198.51.100.2");
    EXPECT_EQ(no_policy.code, 1);
    EXPECT_NE(no_policy.err.find("needs \"internet\""), std::string::npos) << no_policy.err;
    EXPECT_EQ(ahctl(dir, "-q -s " + sid + " net frob").code, 2);
    EXPECT_EQ(ahctl(dir, "-q -s " + sid + " net allow").code, 2);
    EXPECT_EQ(ahctl(dir, "-q stop " + sid).code, 0);
}

// `ahctl top` and `ahctl logs` on kept-alive sandboxes: every sandbox's figures as JSON (actions counted,
// memory and processes from its cgroup), refreshed frames when not --once; the host's log, followed until
// the sandbox stops (then the command ends with 0, as `docker logs -f`).
TEST(Ahctl, TopAndLogsOfKeptSandboxes) {
    TempDir dir("ahctl");
    std::vector<std::string> sids;
    for (int i = 0; i < 2; ++i) {
        // The second denies one command: its decision is a log line written after `logs -f` starts.
        Result started = ahctl(dir, std::string("-r sandbox -q ") + (i == 1 ? "--set 'security.deny_commands=[\"^touch /nope\"]' " : "") + "start");
        ASSERT_EQ(started.code, 0) << started.err;
        sids.push_back(started.out.substr(0, started.out.find('\n')));
    }
    for (int i = 0; i < 3; ++i) ASSERT_EQ(ahctl(dir, "-q -s " + sids[0] + " run -- 'echo " + std::to_string(i) + "'").code, 0);
    ASSERT_EQ(ahctl(dir, "-q -s " + sids[0] + " run -- 'exit 4'").code, 4);  // an observation, not an error: ok
    Result top = ahctl(dir, "top --once --json");
    ASSERT_EQ(top.code, 0) << top.err;
    const json rows = json::parse(top.out);
    ASSERT_EQ(rows.size(), 2u) << top.out;
    std::map<std::string, json> by_sid;
    for (const auto &r : rows) by_sid[r.value("session_id", "")] = r;
    ASSERT_TRUE(by_sid.count(sids[0]) && by_sid.count(sids[1])) << top.out;
    const json &busy = by_sid[sids[0]]["metrics"], &idle = by_sid[sids[1]]["metrics"];
    EXPECT_GE(busy.value("actionhost_actions_total", 0.0), idle.value("actionhost_actions_total", 0.0) + 4) << top.out;
    EXPECT_GT(busy.value("actionhost_sandbox_memory_bytes", 0.0), 0) << top.out;
    EXPECT_GE(busy.value("actionhost_sandbox_pids", 0.0), 2) << top.out;  // the host and its bash at least
    EXPECT_EQ(by_sid[sids[0]]["runtime"], "sandbox");

    // Not --once (and not a terminal): a frame per interval, each with its header.
    auto frames = actionhost::testing::run_process(
        {"/bin/bash", "-c", "timeout 2.5 '" + actionhost::testing::build_path("bin/ahctl") + "' --state-dir '" + dir.path() +
                                "/state' top --interval 0.5; true"},
        30);
    size_t headers = 0;
    for (size_t at = frames.output.find("SESSION"); at != std::string::npos; at = frames.output.find("SESSION", at + 1)) ++headers;
    EXPECT_GE(headers, 3u) << frames.output;
    EXPECT_NE(frames.output.find(sids[1]), std::string::npos) << frames.output;
    EXPECT_EQ(ahctl(dir, "top --interval 0").code, 2);
    EXPECT_EQ(ahctl(dir, "top extra-word").code, 2);

    // logs: what the host logged at start; -f follows a line logged later (a plugin loaded on demand) and
    // ends when the sandbox stops.
    Result logs = ahctl(dir, "logs " + sids[0]);
    EXPECT_EQ(logs.code, 0) << logs.err;
    EXPECT_NE(logs.out.find("loaded plugin bash"), std::string::npos) << logs.out;
    EXPECT_EQ(ahctl(dir, "logs").code, 2);
    EXPECT_EQ(ahctl(dir, "logs no-such-session").code, 1);
    const std::string follow = "'" + actionhost::testing::build_path("bin/ahctl") + "' --state-dir '" + dir.path() + "/state' logs -f " +
                               sids[1] + " > '" + dir.path() + "/followed' 2> '" + dir.path() + "/followed.err'";
    auto followed = std::async(std::launch::async, [&] { return actionhost::testing::run_process({"/bin/bash", "-c", follow}, 60); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_NE(ahctl(dir, "-q -s " + sids[1] + " run -- 'touch /nope'").err.find("denied by policy"), std::string::npos);
    EXPECT_EQ(ahctl(dir, "-q -s " + sids[1] + " run -- 'echo later'").out, "later\n");
    for (int i = 0; i < 50 && actionhost::testing::read_file(dir / "followed").find("deny_commands[0]") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(ahctl(dir, "-q stop " + sids[1]).code, 0);
    ASSERT_EQ(followed.wait_for(std::chrono::seconds(40)), std::future_status::ready);
    EXPECT_EQ(followed.get().exit_code, 0) << actionhost::testing::read_file(dir / "followed.err");
    const std::string seen = actionhost::testing::read_file(dir / "followed");
    EXPECT_NE(seen.find("loaded plugin bash"), std::string::npos) << seen;
    EXPECT_NE(seen.find("deny_commands[0]"), std::string::npos) << seen;  // logged after following began
    EXPECT_NE(actionhost::testing::read_file(dir / "followed.err").find(sids[1] + " stopped"), std::string::npos)
        << actionhost::testing::read_file(dir / "followed.err");
    EXPECT_EQ(ahctl(dir, "-q stop " + sids[0]).code, 0);
}
