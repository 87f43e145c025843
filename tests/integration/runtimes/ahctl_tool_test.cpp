// ahctl as a command-line tool (the real binary, the real sandbox runtime): `run` prints output as it
// comes, waits for quiet commands, never truncates, exits with the command's code and cleans up on
// Ctrl-C; strict flags with suggestions; errors in ahctl's own words with the documented exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

std::string quote(const std::string &s) { return actionhost::testing::sh_word(s); }

// `ahctl <args>` (shell words) with `input` on stdin, a private HOME, TMPDIR and state dir.
Result ahctl(const TempDir &dir, const std::string &args, const std::string &input = "") {
    std::filesystem::create_directories(dir / "tmp");
    actionhost::testing::write_file(dir / "stdin", input);
    std::string cmd = "HOME=" + quote(dir.path()) + " TMPDIR=" + quote(dir / "tmp") + " " +
                      quote(actionhost::testing::build_path("bin/ahctl")) + " --state-dir " + quote(dir / "state") + " " +
                      args + " < " + quote(dir / "stdin") + " > " + quote(dir / "out") + " 2> " + quote(dir / "err");
    auto r = actionhost::testing::run_process({"/bin/bash", "-c", cmd}, 100);
    return {r.exit_code, actionhost::testing::read_file(dir / "out"), actionhost::testing::read_file(dir / "err")};
}

// ahctl with its stdout on a pipe read as it comes: when each piece arrived. With `producer`, a shell
// command whose output is ahctl's stdin (`producer | ahctl ARGS`).
class LiveAhctl {
  public:
    LiveAhctl(const TempDir &dir, const std::vector<std::string> &args, const std::string &producer = "") {
        std::filesystem::create_directories(dir / "tmp");
        int fds[2];
        if (pipe(fds) != 0) return;
        std::vector<std::string> argv = {actionhost::testing::build_path("bin/ahctl"), "--state-dir", dir / "state"};
        argv.insert(argv.end(), args.begin(), args.end());
        if (!producer.empty()) {
            std::string line = producer + " | exec";
            for (const auto &a : argv) line += " " + quote(a);
            argv = {"/bin/bash", "-c", line};
        }
        const std::string home = dir.path(), tmp = dir / "tmp", err = dir / "err";
        pid_ = fork();
        if (pid_ == 0) {
            dup2(fds[1], 1);
            FILE *e = std::fopen(err.c_str(), "w");
            if (e) dup2(fileno(e), 2);
            close(fds[0]);
            setenv("HOME", home.c_str(), 1);
            setenv("TMPDIR", tmp.c_str(), 1);
            std::vector<char *> cargv;
            for (auto &a : argv) cargv.push_back(a.data());
            cargv.push_back(nullptr);
            execv(cargv[0], cargv.data());
            _exit(127);
        }
        close(fds[1]);
        out_ = fds[0];
        start_ = Clock::now();
    }
    ~LiveAhctl() {
        if (pid_ > 0 && !reaped_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (out_ >= 0) close(out_);
    }
    // Reads until `needle` is in the output (true) or EOF / `timeout_s` (false).
    bool wait_for(const std::string &needle, double timeout_s) {
        const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
        while (text_.find(needle) == std::string::npos) {
            if (!read_some(deadline)) return false;
        }
        return true;
    }
    // Reads to EOF and reaps; the exit code (-1 on a signal or when `timeout_s` passed).
    int finish(double timeout_s) {
        const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
        while (read_some(deadline)) {
        }
        int status = 0;
        for (int i = 0; i < 1000 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(10000);
        reaped_ = true;
        ended_ = Clock::now();
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    void signal(int sig) { kill(pid_, sig); }
    const std::string &text() const { return text_; }
    // Seconds from start until `needle` first appeared.
    std::optional<double> seen_at(const std::string &needle) const {
        for (const auto &[at, length] : arrivals_)
            if (text_.substr(0, length).find(needle) != std::string::npos) return std::chrono::duration<double>(at - start_).count();
        return std::nullopt;
    }
    double ended_at() const { return std::chrono::duration<double>(ended_ - start_).count(); }

  private:
    bool read_some(Clock::time_point deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd p{out_, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) return true;
        char buf[65536];
        const ssize_t n = read(out_, buf, sizeof buf);
        if (n <= 0) return false;
        text_.append(buf, static_cast<size_t>(n));
        arrivals_.emplace_back(Clock::now(), text_.size());
        return true;
    }
    pid_t pid_ = -1;
    int out_ = -1;
    bool reaped_ = false;
    std::string text_;
    std::vector<std::pair<Clock::time_point, size_t>> arrivals_;
    Clock::time_point start_, ended_;
};

// What a sandbox leaves in TMPDIR (its run directories, a workspace made for it).
std::vector<std::string> leftovers(const TempDir &dir) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(dir / "tmp", ec)) found.push_back(e.path().filename().string());
    return found;
}

}  // namespace

// Output arrives while the command runs; a command quiet for 20 s is waited for (no 10 s return).
TEST(AhctlTool, RunStreamsAndWaitsForAQuietCommand) {
    TempDir dir("ahctl-tool");
    LiveAhctl run(dir, {"-r", "sandbox", "-q", "run", "--", "echo first; sleep 20; echo last; (exit 7)"});
    ASSERT_TRUE(run.wait_for("first\n", 60)) << run.text();
    EXPECT_EQ(run.finish(90), 7) << actionhost::testing::read_file(dir / "err");
    EXPECT_EQ(run.text(), "first\nlast\n");
    auto first = run.seen_at("first\n");
    ASSERT_TRUE(first.has_value());
    EXPECT_GE(run.ended_at() - *first, 2.0) << "the first line arrived only " << run.ended_at() - *first << " s before the end";
    EXPECT_GE(run.ended_at() - *first, 19.0);  // it was printed 20 s before the end
}

// Nothing is lost or cut: 200 000 lines are 200 000 lines, in order, and -t bounds a command (124).
TEST(AhctlTool, RunNeverTruncatesAndTimeoutBounds) {
    TempDir dir("ahctl-tool");
    Result seq = ahctl(dir, "-r sandbox -q run -- 'seq 1 200000'");
    EXPECT_EQ(seq.code, 0) << seq.err;
    std::string expected;
    for (int i = 1; i <= 200000; ++i) expected += std::to_string(i) + "\n";
    EXPECT_EQ(seq.out.size(), expected.size());
    EXPECT_TRUE(seq.out == expected) << seq.out.substr(0, 200);
    EXPECT_EQ(seq.err.find("truncated"), std::string::npos) << seq.err;
    const auto started = Clock::now();
    Result bounded = ahctl(dir, "-r sandbox -q run -t 2 -- 'echo before; sleep 30'");
    EXPECT_EQ(bounded.code, 124) << bounded.err;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - started).count(), 25.0);
    EXPECT_EQ(bounded.out, "before\n");
    EXPECT_NE(bounded.err.find("did not finish within 2 s"), std::string::npos) << bounded.err;
    // The agent's flags belong to --agent: alone they are a usage error.
    EXPECT_EQ(ahctl(dir, "-r sandbox -q run --is-input -- C-c").code, 2);
}

// Output the host had to drop (a reader far slower than the command: here one that does not read at
// all while 30 MB are printed, beyond the host's 8 MiB per follower) is never lost silently: ahctl
// says so and exits 1 although the command succeeded.
TEST(AhctlTool, LostOutputIsAnErrorNeverASilentCut) {
    TempDir dir("ahctl-tool");
    LiveAhctl run(dir, {"-r", "sandbox", "-q", "run", "--", "head -c 30000000 /dev/zero | tr '\\0' x | fold -w 100"});
    sleep(8);  // not reading: ahctl blocks on its stdout, the host's queue for it overflows
    EXPECT_EQ(run.finish(120), 1);
    const std::string err = actionhost::testing::read_file(dir / "err");
    // Which of the two ways it is told depends on timing: the host drops pieces for the slow reader, or
    // (a loaded machine) ends its stream before the command's end. Either is said; neither is silent.
    EXPECT_TRUE(err.find("pieces of output were lost") != std::string::npos ||
                err.find("the live output stopped before the command ended") != std::string::npos)
        << err;
    EXPECT_LT(run.text().size(), 30000000u + 300000u);
}

// Ctrl-C ends the command and the sandbox it ran in: exit 130, nothing left in TMPDIR.
TEST(AhctlTool, CtrlCStopsTheRuntimeAndLeavesNothing) {
    TempDir dir("ahctl-tool");
    LiveAhctl run(dir, {"-r", "sandbox", "-q", "run", "--", "echo started; sleep 60"});
    ASSERT_TRUE(run.wait_for("started\n", 60)) << run.text();
    EXPECT_FALSE(leftovers(dir).empty());  // the sandbox runs: its directories are there
    run.signal(SIGINT);
    EXPECT_EQ(run.finish(30), 130) << actionhost::testing::read_file(dir / "err");
    EXPECT_LT(run.ended_at(), 40.0);
    EXPECT_EQ(leftovers(dir), std::vector<std::string>{}) << actionhost::testing::read_file(dir / "err");
}

// stdout to stdout, stderr to stderr — in a fresh sandbox and in a kept session, whose shell keeps its
// state (cd, variables) across such commands; no terminal unless --tty, which keeps stdin and stdout the
// terminal (tty, test -t 1) and stderr a pipe.
TEST(AhctlTool, RunKeepsStderrApart) {
    TempDir dir("ahctl-tool");
    Result fresh = ahctl(dir, "-r sandbox -q run -- 'echo out; echo err >&2'");
    EXPECT_EQ(fresh.code, 0) << fresh.err;
    EXPECT_EQ(fresh.out, "out\n");
    EXPECT_EQ(fresh.err, "err\n");

    Result started = ahctl(dir, "-r sandbox -q start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    Result kept = ahctl(dir, "-q -s " + sid + " run -- 'echo out; echo err >&2; cd /tmp; export KEPT=yes'");
    EXPECT_EQ(kept.code, 0) << kept.err;
    EXPECT_EQ(kept.out, "out\n");
    EXPECT_EQ(kept.err, "err\n");
    Result state = ahctl(dir, "-q -s " + sid + " run -- 'echo $KEPT $(pwd); ls /nonexistent-dir'");
    EXPECT_EQ(state.code, 2);
    EXPECT_EQ(state.out, "yes /tmp\n");
    EXPECT_NE(state.err.find("/nonexistent-dir"), std::string::npos) << state.err;
    Result tty = ahctl(dir, "-q -s " + sid + " run --tty -- 'tty >/dev/null && echo stdin-tty; test -t 1 && echo stdout-tty; test -t 2 || echo stderr-pipe'");
    EXPECT_EQ(tty.out, "stdin-tty\nstdout-tty\nstderr-pipe\n") << tty.err;
    Result no_tty = ahctl(dir, "-q -s " + sid + " run -- 'test -t 0 || echo stdin-no-tty; test -t 1 || echo stdout-no-tty; test -t 2 || echo stderr-no-tty >&2'");
    EXPECT_EQ(no_tty.code, 0) << no_tty.err;
    EXPECT_EQ(no_tty.out, "stdin-no-tty\nstdout-no-tty\n");
    EXPECT_EQ(no_tty.err, "stderr-no-tty\n");
    // The shell's state is kept across --tty and plain runs alike.
    Result cwd = ahctl(dir, "-q -s " + sid + " run -- 'cd /usr' && " + quote(actionhost::testing::build_path("bin/ahctl")) +
                                " --state-dir " + quote(dir / "state") + " -q -s " + sid + " run --tty -- pwd");
    EXPECT_EQ(cwd.code, 0) << cwd.err;
    EXPECT_EQ(cwd.out, "/usr\n");
    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

// Both streams arrive live, interleaved as the command writes them: each line is there seconds before
// the command ends.
TEST(AhctlTool, RunStreamsStdoutAndStderrLive) {
    TempDir dir("ahctl-tool");
    LiveAhctl run(dir, {"-r", "sandbox", "-q", "run", "--", "echo o1; echo e1 >&2; sleep 4; echo o2; echo e2 >&2"});
    ASSERT_TRUE(run.wait_for("o1\n", 60)) << run.text();
    // stderr goes to the file ahctl's stderr is: e1 shows there while the command still sleeps.
    bool e1_live = false;
    for (int i = 0; i < 20 && !e1_live; ++i) {
        e1_live = actionhost::testing::read_file(dir / "err").find("e1\n") != std::string::npos;
        if (!e1_live) usleep(100000);
    }
    const bool o2_yet = run.text().find("o2") != std::string::npos;
    EXPECT_TRUE(e1_live) << actionhost::testing::read_file(dir / "err");
    EXPECT_FALSE(o2_yet) << "the command ended before e1 was checked: the check proves nothing";
    EXPECT_EQ(run.finish(60), 0);
    EXPECT_EQ(run.text(), "o1\no2\n");
    EXPECT_EQ(actionhost::testing::read_file(dir / "err"), "e1\ne2\n");
    auto o1 = run.seen_at("o1\n");
    ASSERT_TRUE(o1.has_value());
    EXPECT_GE(run.ended_at() - *o1, 2.0);
}

// Ctrl-C during a command of a kept session stops that command in the sandbox: ahctl exits 130 at once,
// and the session answers the next command straight away (no "previous command still running").
TEST(AhctlTool, CtrlCStopsTheCommandOfAKeptSession) {
    TempDir dir("ahctl-tool");
    Result started = ahctl(dir, "-r sandbox -q start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    {
        LiveAhctl run(dir, {"-q", "-s", sid, "run", "--", "echo started; sleep 100; echo never"});
        ASSERT_TRUE(run.wait_for("started\n", 60)) << run.text();
        const auto signalled = Clock::now();
        run.signal(SIGINT);
        EXPECT_EQ(run.finish(30), 130) << actionhost::testing::read_file(dir / "err");
        EXPECT_LT(std::chrono::duration<double>(Clock::now() - signalled).count(), 2.5);
        // What the command prints on its way out (the terminal's newline after ^C) still comes; not more.
        EXPECT_EQ(run.text().rfind("started\n", 0), 0u) << run.text();
        EXPECT_EQ(run.text().find("never"), std::string::npos) << run.text();
    }
    const auto next = Clock::now();
    Result ok = ahctl(dir, "-q -s " + sid + " run -- echo ok");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - next).count(), 3.0)
        << "the interrupted command went on; ahctl said: " << actionhost::testing::read_file(dir / "err");
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.out, "ok\n");
    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

// Unknown flags anywhere before `--` are errors (exit 2) naming the flag meant; `--version`.
TEST(AhctlTool, StrictFlagsWithSuggestions) {
    TempDir dir("ahctl-tool");
    struct Case {
        std::string args, unknown, suggestion;
    };
    for (const Case &c : {Case{"--verbose run -- echo hi", "--verbose", ""}, Case{"run --timout 5 -- echo hi", "--timout", "--timeout"},
                          Case{"ps --foo", "--foo", ""}, Case{"--sesion x run -- true", "--sesion", "--session"},
                          Case{"run --cdw /tmp -- true", "--cdw", "--cwd"}, Case{"rnu -- true", "rnu", "run"}}) {
        Result r = ahctl(dir, c.args);
        EXPECT_EQ(r.code, 2) << c.args << ": " << r.err;
        EXPECT_NE(r.err.find(c.unknown), std::string::npos) << r.err;
        if (!c.suggestion.empty()) {
            EXPECT_NE(r.err.find("did you mean " + c.suggestion + "?"), std::string::npos) << r.err;
        }
        EXPECT_EQ(r.out, "");
    }
    Result after_dashdash = ahctl(dir, "-r sandbox -q run -- echo --verbose --timout");  // the command's own words
    EXPECT_EQ(after_dashdash.code, 0) << after_dashdash.err;
    EXPECT_EQ(after_dashdash.out, "--verbose --timout\n");
    Result version = ahctl(dir, "--version");
    EXPECT_EQ(version.code, 0);
    EXPECT_EQ(version.out.rfind("ahctl ", 0), 0u) << version.out;
    Result help = ahctl(dir, "cp --help");
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find("Examples"), std::string::npos) << help.out;
    EXPECT_EQ(help.out.find("--install-dir"), std::string::npos) << "a command's help repeats the global options";
    EXPECT_EQ(help.out.find('\033'), std::string::npos);  // not a terminal: no colour
}

// Errors are ahctl's words with the documented codes, never HTTP internals or a silent surprise.
TEST(AhctlTool, ErrorsInItsOwnWords) {
    TempDir dir("ahctl-tool");
    // A session id that is not kept alive: an error, not a fresh sandbox.
    Result typo = ahctl(dir, "-r sandbox -s deadbeef run -- true");
    EXPECT_EQ(typo.code, 2) << typo.err;
    EXPECT_NE(typo.err.find("no kept-alive runtime with session id deadbeef"), std::string::npos) << typo.err;
    EXPECT_EQ(leftovers(dir), std::vector<std::string>{});
    // A workspace that does not exist is not made.
    Result ws = ahctl(dir, "-r sandbox -w " + quote(dir / "nonexistent") + " run -- true");
    EXPECT_EQ(ws.code, 2) << ws.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "nonexistent"));
    // cp: a missing local file is a usage error; a missing sandbox file says so.
    Result local = ahctl(dir, "-r sandbox cp " + quote(dir / "missing.txt") + " sandbox:/tmp");
    EXPECT_EQ(local.code, 2) << local.err;
    EXPECT_NE(local.err.find("no such file or directory: "), std::string::npos) << local.err;

    Result started = ahctl(dir, "-r sandbox -q start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    Result remote = ahctl(dir, "-q -s " + sid + " cp sandbox:/tmp/missing.txt " + quote(dir.path()));
    EXPECT_EQ(remote.code, 1) << remote.err;
    EXPECT_NE(remote.err.find("no such file or directory in the sandbox: /tmp/missing.txt"), std::string::npos) << remote.err;
    EXPECT_EQ(remote.err.find("HTTP"), std::string::npos) << remote.err;
    // read of a missing file: the message on stderr, exit 1, nothing on stdout.
    Result read = ahctl(dir, "-q -s " + sid + " read /tmp/missing.txt");
    EXPECT_EQ(read.code, 1) << read.err;
    EXPECT_EQ(read.out, "");
    EXPECT_NE(read.err.find("missing.txt"), std::string::npos) << read.err;
    // write stores stdin byte for byte: no newline added, none removed.
    for (const std::string content : {"abc", "a\nb\n", ""}) {
        Result w = ahctl(dir, "-q -s " + sid + " write /tmp/w.txt", content);
        EXPECT_EQ(w.code, 0) << w.err;
        Result back = ahctl(dir, "-q -s " + sid + " run -- 'od -An -c /tmp/w.txt; wc -c < /tmp/w.txt'");
        EXPECT_NE(back.out.find(std::to_string(content.size()) + "\n"), std::string::npos) << back.out;
        EXPECT_EQ(ahctl(dir, "-q -s " + sid + " read /tmp/w.txt").out, content);
    }
    // ps: the age counts from the first start, not from the last reattach (one just before ps).
    sleep(2);
    EXPECT_EQ(ahctl(dir, "-q -s " + sid + " run -- true").code, 0);
    Result ps = ahctl(dir, "--json ps");
    const auto listed = nlohmann::json::parse(ps.out, nullptr, false);
    ASSERT_TRUE(listed.is_array() && listed.size() == 1) << ps.out;
    EXPECT_GE(listed[0].value("age_s", 0), 2) << ps.out;
    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

// An exception in an IPython cell is a failure (exit 1); a clean cell after it is not.
TEST(AhctlTool, IpythonExceptionExitsNonZero) {
    if (!std::filesystem::exists(actionhost::testing::build_path("lib/actionhost/plugins/jupyter/manifest.json")))
        GTEST_SKIP() << "the jupyter plugin is not built";
    TempDir dir("ahctl-tool");
    Result started = ahctl(dir, "-r sandbox -q -p jupyter start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    Result raised = ahctl(dir, "-q -s " + sid + " ipython 'raise ValueError(\"boom\")'");
    EXPECT_EQ(raised.code, 1) << raised.out << raised.err;
    EXPECT_NE(raised.out.find("ValueError"), std::string::npos) << raised.out;
    Result clean = ahctl(dir, "-q -s " + sid + " ipython 'print(6*7)'");
    EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
    EXPECT_EQ(clean.out, "42\n");
    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

// As docker run without -t: no terminal, so nothing asks (rm of a protected file, rm -i), a command's
// stdin is empty (end of file at once, whatever ahctl's stdin holds), `exit 7` exits 7 and adds nothing.
TEST(AhctlTool, RunHasNoTerminalUnlessAsked) {
    TempDir dir("ahctl-tool");
    Result started = ahctl(dir, "-r sandbox -q start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    const std::string run = "-q -s " + sid + " -t 60 run ";
    Result r = ahctl(dir, run + "-- 'test -t 0; echo in=$?; test -t 1; echo out=$?'", "ahctl's own input\n");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "in=1\nout=1\n");
    r = ahctl(dir, run + "--tty -- 'test -t 0; echo in=$?; test -t 1; echo out=$?'");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "in=0\nout=0\n");
    // Without -i the command reads the end of its input at once, never ahctl's.
    const auto t0 = Clock::now();
    r = ahctl(dir, run + "-- 'cat; echo read-all'", "not for the command\n");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "read-all\n");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 30.0);
    // Nothing asks: a write-protected file goes (as the sandbox's user), rm -i reads "no" from the end.
    r = ahctl(dir, run + "-- 'cd /tmp && touch p q && chmod 0444 p && rm p && echo removed; rm -i q; ls q'");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "removed\nq\n");
    // git writes no colour codes and pages nothing into a pipe.
    r = ahctl(dir, run + "-- 'cd /tmp && rm -rf g && git init -q g && cd g && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m one && git -c color.ui=auto log --oneline'");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_TRUE(r.out.size() > 5 && r.out.substr(r.out.size() - 5) == " one\n") << r.out;
    // exit: the command's code, and no "exit" of bash's anywhere.
    r = ahctl(dir, run + "-- 'exit 7'");
    EXPECT_EQ(r.code, 7) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
    r = ahctl(dir, run + "-- 'echo still-here'");  // the session's shell came back
    EXPECT_EQ(r.out, "still-here\n") << r.err;
    // Bad combinations are usage errors, before anything runs.
    EXPECT_EQ(ahctl(dir, run + "--tty -i -- cat").code, 2);
    EXPECT_EQ(ahctl(dir, run + "--agent -i -- cat").code, 2);
    Result typo = ahctl(dir, run + "--interactiv -- cat");
    EXPECT_EQ(typo.code, 2);
    EXPECT_NE(typo.err.find("did you mean --interactive?"), std::string::npos) << typo.err;
    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

// -i: ahctl's stdin is the command's, then end of file; large input is streamed (ahctl and the host hold
// a piece at a time); a command that stops reading ends ahctl however much input is left.
TEST(AhctlTool, RunInteractiveForwardsStdin) {
    TempDir dir("ahctl-tool");
    Result started = ahctl(dir, "-r sandbox -q start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    const std::string run = "-q -s " + sid + " -t 60 run ";
    Result r = ahctl(dir, run + "-i -- cat", "x\n");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "x\n");
    r = ahctl(dir, run + "--interactive -- 'wc -l'", "a\nb\n");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "2\n");
    r = ahctl(dir, run + "-i -- 'wc -c'", "");
    EXPECT_EQ(r.out, "0\n") << r.err;
    std::string big;
    for (int i = 0; i < 300000; ++i) big += std::to_string(i) + "\n";
    r = ahctl(dir, run + "-i -- 'sha256sum | cut -c1-64; wc -c < /dev/null'", big);
    EXPECT_EQ(r.code, 0) << r.err;
    auto local = actionhost::testing::run_process({"/bin/bash", "-c", "seq 0 299999 | sha256sum | cut -c1-64"}, 30);
    EXPECT_EQ(r.out, local.output + "0\n");
    r = ahctl(dir, run + "-i -- 'head -1'", big);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "0\n");
    EXPECT_EQ(ahctl(dir, "stop " + sid).code, 0);
}

// -i with a producer that runs on: what it wrote reaches the command, and the command's output comes back,
// while the producer still runs — input is streamed, not read to its end first.
TEST(AhctlTool, RunInteractiveStreamsALongRunningProducer) {
    TempDir dir("ahctl-tool");
    LiveAhctl run(dir, {"-r", "sandbox", "-q", "run", "-i", "--", "while read -r l; do echo got-$l; done; echo end"},
                  "(echo one; sleep 6; echo two)");
    ASSERT_TRUE(run.wait_for("got-one\n", 60)) << run.text() << actionhost::testing::read_file(dir / "err");
    EXPECT_EQ(run.text().find("got-two"), std::string::npos) << "the producer had ended: the check proves nothing";
    EXPECT_EQ(run.finish(60), 0) << actionhost::testing::read_file(dir / "err");
    EXPECT_EQ(run.text(), "got-one\ngot-two\nend\n");
    auto one = run.seen_at("got-one\n");
    ASSERT_TRUE(one.has_value());
    EXPECT_GE(run.ended_at() - *one, 4.0);
}
