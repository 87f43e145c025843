// `ahctl ipython` and `ahctl shell` end to end: ipython through the jupyter plugin on the local
// runtime; the shell driven through a pipe (lines in, output out, input to a still-running command)
// and through a pseudo-terminal (the prompt with the shell's directory).
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::TempDir;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

std::string quote(const std::string &s) { return actionhost::testing::sh_word(s); }

// Runs `ahctl <args>` (shell words) with `input` on stdin (a pipe), a private HOME and state dir.
Result ahctl(const TempDir &dir, const std::string &args, const std::string &input = "") {
    actionhost::testing::write_file(dir / "stdin", input);
    std::string cmd = "HOME=" + quote(dir.path()) + " " + quote(actionhost::testing::build_path("bin/ahctl")) +
                      " --state-dir " + quote(dir.path() + "/state") + " " + args + " < " + quote(dir / "stdin") +
                      " > " + quote(dir / "out") + " 2> " + quote(dir / "err");
    auto r = actionhost::testing::run_process({"/bin/bash", "-c", cmd}, 100);
    return {r.exit_code, actionhost::testing::read_file(dir / "out"), actionhost::testing::read_file(dir / "err")};
}

bool have_jupyter() {
    return std::filesystem::exists(actionhost::testing::build_path("lib/actionhost/plugins/jupyter/manifest.json"));
}

// ahctl on a pseudo-terminal: what it prints (stdout and stderr, as a terminal shows them).
class PtyAhctl {
  public:
    PtyAhctl(const TempDir &dir, const std::vector<std::string> &args) {
        std::vector<std::string> argv = {actionhost::testing::build_path("bin/ahctl"), "--state-dir", dir.path() + "/state"};
        argv.insert(argv.end(), args.begin(), args.end());
        const std::string home = "HOME=" + dir.path();
        pid_ = forkpty(&master_, nullptr, nullptr, nullptr);
        if (pid_ == 0) {
            putenv(const_cast<char *>(home.c_str()));
            std::vector<char *> cargv;
            for (auto &a : argv) cargv.push_back(a.data());
            cargv.push_back(nullptr);
            execv(cargv[0], cargv.data());
            _exit(127);
        }
    }
    ~PtyAhctl() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (master_ >= 0) close(master_);
    }
    bool started() const { return pid_ > 0 && master_ >= 0; }
    void type(const std::string &text) { (void)!write(master_, text.data(), text.size()); }
    // Reads until `needle` appears in everything read so far (or the time is up); true when it did.
    bool wait_for(const std::string &needle, double timeout_s = 60) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        char buf[4096];
        while (seen_.find(needle, from_) == std::string::npos) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
            if (left <= 0) return false;
            pollfd p{master_, POLLIN, 0};
            if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
            const ssize_t n = read(master_, buf, sizeof buf);
            if (n <= 0) return seen_.find(needle, from_) != std::string::npos;
            seen_.append(buf, static_cast<size_t>(n));
        }
        from_ = seen_.find(needle, from_) + needle.size();
        return true;
    }
    // Waits (bounded in time) for the exit status, draining the terminal meanwhile.
    int wait_exit(double timeout_s = 60) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (std::chrono::steady_clock::now() < deadline) {
            int st = 0;
            if (waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            char buf[4096];
            pollfd p{master_, POLLIN, 0};
            // After the child closed the terminal, poll reports a hang-up at once: sleep instead.
            if (poll(&p, 1, 50) > 0 && (p.revents & POLLIN) && read(master_, buf, sizeof buf) > 0) continue;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }
    const std::string &seen() const { return seen_; }

  private:
    pid_t pid_ = -1;
    int master_ = -1;
    std::string seen_;
    size_t from_ = 0;
};

}  // namespace

TEST(AhctlIpython, RunsCodeInTheKernelAndExitsByOutcome) {
    if (!have_jupyter()) GTEST_SKIP() << "the jupyter plugin is not built in this configuration";
    TempDir dir("ahctl-ipy");
    Result ok = ahctl(dir, "-r local -p jupyter -q ipython 'print(6 * 7)'");
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.out, "42\n");
    // Code from stdin with `-`; an exception's traceback is printed after the output before it.
    Result piped = ahctl(dir, "-r local -p jupyter -q ipython -", "x = 'from'\nprint(x + ' stdin')\nraise ValueError('nope')\n");
    EXPECT_EQ(piped.out.rfind("from stdin\n", 0), 0u) << piped.out << piped.err;
    EXPECT_NE(piped.out.find("ValueError: nope"), std::string::npos) << piped.out;
    EXPECT_EQ(piped.code, 1) << "an exception is a failure";
    Result usage = ahctl(dir, "-r local -q ipython");
    EXPECT_EQ(usage.code, 2) << usage.err;
}

TEST(AhctlShell, PipedLinesRunInOneShellAndFeedARunningCommand) {
    TempDir dir("ahctl-sh");
    std::filesystem::create_directories(dir / "ws/sub");
    // Each line is a command of the same shell: cd persists. The `read` outlives its 2 s timeout, so the
    // next line is typed into it; then `exit` ends the shell.
    const std::string input = "cd sub\npwd\nread -p 'name? ' n; echo \"hello $n\"\nBob\necho after $n\nexit\necho never\n";
    Result r = ahctl(dir, "-r local -q -t 2 -w " + quote(dir / "ws") + " shell", input);
    EXPECT_EQ(r.code, 0) << r.err;
    const std::string ws = std::filesystem::canonical(dir / "ws").string();
    EXPECT_NE(r.out.find(ws + "/sub\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("hello Bob"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("after Bob"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("never"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("timed out after 2.0 seconds"), std::string::npos) << r.err;
    // No prompt on a pipe.
    EXPECT_EQ(r.err.find("ahctl:"), std::string::npos) << r.err;
    // End of input ends the shell with the last command's status.
    Result eof = ahctl(dir, "-r local -q shell", "false\n");
    EXPECT_EQ(eof.code, 1) << eof.err;
}

// On a terminal `ahctl shell` is a real terminal in the runtime (GET /terminal), as `docker exec -it`:
// readline's history answers the Up arrow, ^C interrupts the remote command (not ahctl), and the shell
// takes commands afterwards; exit ends ahctl with the shell's status.
//
// Each wait looks for what the shell prints, never for text that the echo of the typed line holds too
// ('READY''> ', 'name''? '): a person types after seeing the prompt, not the echo. Keys typed while
// readline still edits the line land on a terminal it keeps raw, without echo and with CR left a CR; a
// `read` started after them gets "Ada\r" and waits for a newline forever (bash does the same on a local
// terminal). Waiting for the echo made that a race with the remote shell, lost when the CPU was busy.
TEST(AhctlShell, OnATerminalArrowKeysCtrlCAndExitStatusWorkAsInALocalShell) {
    TempDir dir("ahctl-pty");
    PtyAhctl sh(dir, {"-r", "sandbox", "-q", "shell"});
    ASSERT_TRUE(sh.started());
    ASSERT_TRUE(sh.wait_for("@sandbox:")) << sh.seen();  // bash's own prompt
    sh.type("PS1='READY''> '\r");
    ASSERT_TRUE(sh.wait_for("READY> ")) << sh.seen();
    sh.type("echo one\r");
    ASSERT_TRUE(sh.wait_for("one\r\n")) << sh.seen();
    ASSERT_TRUE(sh.wait_for("READY> ")) << sh.seen();
    sh.type("\x1b[A\r");  // Up arrow: the last command again
    ASSERT_TRUE(sh.wait_for("echo one\r\n")) << sh.seen();
    ASSERT_TRUE(sh.wait_for("one\r\n")) << sh.seen();
    // A prompt that reads input shows at once (no waiting for the command to end).
    sh.type("read -p 'name''? ' n; echo \"hi $n\"\r");
    ASSERT_TRUE(sh.wait_for("name? ", 10)) << sh.seen();
    sh.type("Ada\r");
    ASSERT_TRUE(sh.wait_for("hi Ada")) << sh.seen();
    const auto start = std::chrono::steady_clock::now();
    sh.type("sleep 100\r");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    sh.type("\x03");
    sh.type("echo code-$?\r");
    ASSERT_TRUE(sh.wait_for("code-130")) << sh.seen();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    sh.type("exit 3\r");
    EXPECT_EQ(sh.wait_exit(), 3) << sh.seen();
}

// Ctrl-P Ctrl-Q detaches and leaves the terminal running; `ahctl attach NAME` finds its state.
TEST(AhctlShell, DetachAndAttachKeepTheRemoteShell) {
    TempDir dir("ahctl-pty");
    Result started = ahctl(dir, "-r sandbox -q start");
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string sid = started.out.substr(0, started.out.find('\n'));
    {
        PtyAhctl sh(dir, {"-r", "sandbox", "-q", "-s", sid, "shell", "work"});
        ASSERT_TRUE(sh.wait_for("@sandbox:")) << sh.seen();
        sh.type("PS1='READY> '; cd /tmp; MARK=kept-$((40+2))\r");
        ASSERT_TRUE(sh.wait_for("READY> ")) << sh.seen();
        sh.type("\x10\x11");
        // The hint names the session: `ahctl attach work` alone would start another sandbox.
        EXPECT_TRUE(sh.wait_for("detached from terminal work; `ahctl -s " + sid + " attach work` re-attaches")) << sh.seen();
        EXPECT_EQ(sh.wait_exit(), 0) << sh.seen();
    }
    {
        PtyAhctl sh(dir, {"-r", "sandbox", "-q", "-s", sid, "attach", "work"});
        ASSERT_TRUE(sh.wait_for("READY> ")) << sh.seen();  // the scrollback shows the last prompt
        sh.type("echo $MARK in $PWD\r");
        ASSERT_TRUE(sh.wait_for("kept-42 in /tmp")) << sh.seen();
        sh.type("exit\r");
        EXPECT_EQ(sh.wait_exit(), 0) << sh.seen();
    }
    {  // the shell exited: nothing to attach to
        PtyAhctl sh(dir, {"-r", "sandbox", "-q", "-s", sid, "attach", "work"});
        EXPECT_TRUE(sh.wait_for("no terminal named 'work'")) << sh.seen();
        EXPECT_EQ(sh.wait_exit(), 1) << sh.seen();
    }
    ahctl(dir, "stop " + sid);
}
