// BashSession's tty-less commands (`tty` false) and their stdin (`open_stdin`, feed_stdin), with a real
// bash and no host: the command runs in the persistent shell without its terminal; stdout and stderr
// apart; stdin /dev/null or the bytes fed to it, then end of file; an `exit` leaves nothing behind.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "bash_session.hpp"
#include "run_request.hpp"

using namespace actionhost::bash;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

class Session {
  public:
    Session() {
        char tmpl[] = "/tmp/ah-bash-session-test-XXXXXX";
        dir_ = mkdtemp(tmpl) ? tmpl : "/tmp";
        SessionConfig cfg;
        cfg.name = "test";
        cfg.working_dir = dir_;
        cfg.identity = std::make_shared<actionhost::common::ShellIdentity>(actionhost::common::resolve_shell_identity(""));
        session_ = std::make_unique<BashSession>(cfg);
        started_ = static_cast<bool>(session_->start());
    }
    ~Session() {
        session_.reset();
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    bool started() const { return started_; }
    BashSession &get() { return *session_; }
    const std::string &dir() const { return dir_; }

    // Runs `command` (blocking, 30 s at most) with `args` set; the observation, and the chunks emitted.
    json run(const std::string &command, json args = json::object()) {
        args["command"] = command;
        args["blocking"] = true;
        auto rq = parse_run_request(json{{"action", "run"}, {"args", args}, {"timeout", 30}}.dump());
        if (!rq) return json{{"parse_error", rq.error().message}};
        stdout_chunks.clear();
        stderr_chunks.clear();
        const EmitFn out = [this](std::string_view c) {
            std::lock_guard lk(mu_);
            stdout_chunks += c;
        };
        const EmitFn err = [this](std::string_view c) {
            std::lock_guard lk(mu_);
            stderr_chunks += c;
        };
        return json::parse(session_->execute(rq.value(), out, err));
    }

    std::string stdout_chunks, stderr_chunks;

  private:
    std::mutex mu_;
    std::string dir_;
    std::unique_ptr<BashSession> session_;
    bool started_ = false;
};

json no_tty() { return json{{"tty", false}}; }
int exit_code(const json &obs) { return obs["extras"]["metadata"].value("exit_code", -99); }
std::string stderr_of(const json &obs) { return obs["extras"].value("stderr", std::string("<none>")); }

}  // namespace

TEST(BashSessionTtyLess, NoTerminalStreamsApartAndTheShellStateKept) {
    Session s;
    ASSERT_TRUE(s.started());
    json obs = s.run("test -t 0 || echo in-not-tty; test -t 1 || echo out-not-tty; test -t 2 || echo err-not-tty >&2", no_tty());
    EXPECT_EQ(obs.value("content", ""), "in-not-tty\nout-not-tty") << obs.dump();
    EXPECT_EQ(stderr_of(obs), "err-not-tty");
    EXPECT_EQ(exit_code(obs), 0);
    // What was emitted is the bytes as written (no terminal's CR LF), each on its own side.
    EXPECT_EQ(s.stdout_chunks, "in-not-tty\nout-not-tty\n");
    EXPECT_EQ(s.stderr_chunks, "err-not-tty\n");
    // stdin is /dev/null: read at once to its end, never waiting.
    const auto t0 = Clock::now();
    obs = s.run("cat; echo \"read $(wc -c) bytes\"", no_tty());
    EXPECT_EQ(obs.value("content", ""), "read 0 bytes") << obs.dump();
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10.0);
    // cd and variables persist, across tty-less and terminal commands alike.
    EXPECT_EQ(exit_code(s.run("cd /usr && KEPT=yes", no_tty())), 0);
    obs = s.run("echo $KEPT $(pwd)");
    EXPECT_EQ(obs.value("content", ""), "yes /usr");
    obs = s.run("echo $KEPT $(pwd)", no_tty());
    EXPECT_EQ(obs.value("content", ""), "yes /usr");
    EXPECT_EQ(obs["extras"]["metadata"].value("working_dir", ""), "/usr");
    // The terminal's commands are as before: on the terminal, merged, no stderr field.
    obs = s.run("test -t 0 && test -t 1 && echo tty; echo err >&2");
    EXPECT_EQ(obs.value("content", ""), "tty\nerr");
    EXPECT_FALSE(obs["extras"].contains("stderr"));
}

TEST(BashSessionTtyLess, ExitLeavesNothingInTheOutputAndTheShellComesBack) {
    Session s;
    ASSERT_TRUE(s.started());
    json obs = s.run("exit 7", no_tty());
    EXPECT_EQ(exit_code(obs), 7) << obs.dump();
    EXPECT_EQ(obs.value("content", "<none>"), "");
    EXPECT_EQ(stderr_of(obs), "");
    EXPECT_EQ(s.stdout_chunks + s.stderr_chunks, "");
    obs = s.run("echo back", no_tty());
    EXPECT_EQ(obs.value("content", ""), "back");
    // A syntax error is the command's stderr too, and the shell goes on.
    obs = s.run("if then fi", no_tty());
    EXPECT_NE(exit_code(obs), 0);
    EXPECT_NE(stderr_of(obs).find("syntax error"), std::string::npos) << obs.dump();
    EXPECT_EQ(obs.value("content", "<none>"), "");
}

TEST(BashSessionTtyLess, ARemoveOfAProtectedFileDoesNotAsk) {
    Session s;
    ASSERT_TRUE(s.started());
    const std::string f = s.dir() + "/protected";
    ASSERT_EQ(system(("touch " + f + " && chmod 0444 " + f).c_str()), 0);
    const auto t0 = Clock::now();
    json obs = s.run("rm " + f + " && echo removed", no_tty());
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10.0);
    EXPECT_EQ(obs.value("content", ""), "removed") << obs.dump();
    EXPECT_FALSE(std::filesystem::exists(f));
    // As root nothing is write-protected; `rm -i` asks anyone: its answer is the end of /dev/null, no.
    ASSERT_EQ(system(("touch " + f).c_str()), 0);
    obs = s.run("rm -i " + f + "; echo asked", no_tty());
    EXPECT_EQ(obs.value("content", ""), "asked") << obs.dump();
    EXPECT_NE(stderr_of(obs).find("remove"), std::string::npos) << obs.dump();
    EXPECT_TRUE(std::filesystem::exists(f));
}

TEST(BashSessionTtyLess, OpenStdinTakesTheFedBytesThenEndOfFile) {
    Session s;
    ASSERT_TRUE(s.started());
    // Nothing to feed: no command reads its stdin.
    EXPECT_TRUE(s.get().feed_stdin("x", true, std::chrono::milliseconds(200)).no_command);
    json args = no_tty();
    args["open_stdin"] = true;
    auto running = std::async(std::launch::async, [&] { return s.run("wc -l; echo done", args); });
    StdinFeed a = s.get().feed_stdin("a\nb\n", false, std::chrono::seconds(10));
    EXPECT_EQ(a.written, 4u);
    EXPECT_FALSE(a.closed);
    EXPECT_FALSE(a.no_command);
    StdinFeed end = s.get().feed_stdin("c\n", true, std::chrono::seconds(10));
    EXPECT_EQ(end.written, 2u);
    EXPECT_TRUE(end.closed);
    ASSERT_EQ(running.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    json obs = running.get();
    EXPECT_EQ(obs.value("content", ""), "3\ndone") << obs.dump();
    // The next command's stdin is /dev/null again.
    EXPECT_EQ(s.run("wc -c", no_tty()).value("content", ""), "0");
}

TEST(BashSessionTtyLess, EndOfFileBeforeAnyByteAndACommandThatStopsReading) {
    Session s;
    ASSERT_TRUE(s.started());
    json args = no_tty();
    args["open_stdin"] = true;
    auto running = std::async(std::launch::async, [&] { return s.run("cat; echo after-eof", args); });
    StdinFeed end = s.get().feed_stdin("", true, std::chrono::seconds(10));
    EXPECT_TRUE(end.closed);
    ASSERT_EQ(running.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    EXPECT_EQ(running.get().value("content", ""), "after-eof");

    // `head -1` stops reading after its line: the feed is told the stdin is closed instead of blocking.
    auto head = std::async(std::launch::async, [&] { return s.run("head -1", args); });
    StdinFeed first = s.get().feed_stdin("one\n", false, std::chrono::seconds(10));
    EXPECT_EQ(first.written, 4u);
    ASSERT_EQ(head.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    EXPECT_EQ(head.get().value("content", ""), "one");
    const std::string lots(1 << 20, 'x');
    const auto t0 = Clock::now();
    StdinFeed rest = s.get().feed_stdin(lots, false, std::chrono::seconds(10));
    EXPECT_TRUE(rest.closed || rest.no_command);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 8.0);
}

TEST(BashSessionTtyLess, OpenStdinNeedsTtyFalseAndInputForATtyLessCommandIsRefused) {
    EXPECT_EQ(parse_run_request(R"({"args":{"command":"cat","open_stdin":true}})").error().message,
              "Invalid run action: `open_stdin` needs `tty` false (with the terminal, input goes through `is_input`)");
    auto rq = parse_run_request(R"({"args":{"command":"cat","tty":"false","open_stdin":1}})");
    ASSERT_TRUE(rq) << rq.error().message;
    EXPECT_FALSE(rq.value().tty);
    EXPECT_TRUE(rq.value().open_stdin);
    EXPECT_TRUE(parse_run_request(R"({"args":{"command":"cat"}})").value().tty);  // absent: the terminal
    EXPECT_EQ(parse_run_request(R"({"args":{"command":"cat","tty":"no"}})").error().message,
              "Invalid value for `tty`: expected a boolean");

    Session s;
    ASSERT_TRUE(s.started());
    auto rq2 = parse_run_request(json{{"action", "run"}, {"args", {{"command", "sleep 3"}, {"tty", false}}}, {"timeout", 1}}.dump());
    ASSERT_TRUE(rq2);
    json partial = json::parse(s.get().execute(rq2.value(), {}, {}));
    EXPECT_EQ(exit_code(partial), -1) << partial.dump();  // still running
    auto input = parse_run_request(R"({"args":{"command":"y","is_input":true}})");
    json refused = json::parse(s.get().execute(input.value(), {}, {}));
    EXPECT_EQ(refused.value("observation", ""), "error") << refused.dump();
    EXPECT_NE(refused.value("content", "").find("no terminal"), std::string::npos) << refused.dump();
}

// The private directory is the shell's user's (the agent's): a command may plant links there, at the names
// the host writes next (the command file, a stdin FIFO, the rcfile, an over-long command). The host never
// follows one: what the links name stays as it was, and the session goes on working.
TEST(BashSessionTtyLess, LinksPlantedInThePrivateDirectoryAreNeverFollowed) {
    Session s;
    ASSERT_TRUE(s.started());
    const std::string victim = s.dir() + "/victim";
    {
        FILE *f = std::fopen(victim.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("untouched\n", f);
        std::fclose(f);
    }
    ASSERT_EQ(chmod(victim.c_str(), 0600), 0);
    const std::string plant = "D=$(dirname \"$BASH_SOURCE\"); V=" + victim +
                              "; for n in tty-less-command.sh bashrc command-1.sh command-2.sh; do rm -f \"$D/$n\"; ln -s \"$V\" \"$D/$n\"; done; "
                              "for i in 1 2 3 4 5 6 7 8; do rm -f \"$D/stdin-$i\"; ln -s \"$V\" \"$D/stdin-$i\"; done; echo planted";
    json planted = s.run(plant, no_tty());
    ASSERT_EQ(planted.value("content", ""), "planted") << planted.dump();
    // The next command file replaces the link; a stdin FIFO too; an over-long command goes to a file.
    EXPECT_EQ(s.run("echo next", no_tty()).value("content", ""), "next");
    json args = no_tty();
    args["open_stdin"] = true;
    auto running = std::async(std::launch::async, [&] { return s.run("cat", args); });
    StdinFeed fed = s.get().feed_stdin("fed\n", true, std::chrono::seconds(10));
    EXPECT_TRUE(fed.closed);
    ASSERT_EQ(running.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    EXPECT_EQ(running.get().value("content", ""), "fed");
    const std::string long_line = "echo " + std::string(9000, 'x') + " | wc -c";
    EXPECT_EQ(s.run(long_line).value("content", ""), "9001");
    std::ifstream in(victim);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, "untouched\n") << "the host wrote through a planted link";
    struct stat st {};
    ASSERT_EQ(stat(victim.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u) << "the host changed a planted link's target";
    EXPECT_FALSE(S_ISFIFO(st.st_mode));
}
