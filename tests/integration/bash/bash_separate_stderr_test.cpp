// actionhost's `separate_stderr` argument of `run` (what `ahctl run` sends): the command's stderr goes
// through a pipe of its own while the command still runs in the session's persistent shell — its own
// field of the observation, "stream":"stderr" on /stream — and agents, which never send the argument,
// see exactly the terminal's merged output. Also the C-c key the host lets through beside a running
// action (the manifest's "interrupt_when").
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "bash_test_util.hpp"

using namespace bashtest;
using actionhost::testing::Http;
using actionhost::testing::HttpResponse;
using Clock = std::chrono::steady_clock;

namespace {

json separate(const std::string &command) {
    json a = run_action(command);
    a["args"]["separate_stderr"] = true;
    a["args"]["blocking"] = true;
    a["timeout"] = 60;
    return a;
}

bool has_stderr_field(const json &obs) { return obs.at("extras").contains("stderr"); }

// Runs `action` in session `session` on a connection of its own (the host's test client serialises its
// own requests), so that it can go beside a call still running.
json execute_apart(BashHost &h, const json &action, const std::string &session) {
    Http http("127.0.0.1", h.host().port(), 130);
    return http.post_json("/execute_action", json{{"action", action}, {"session", session}}.dump()).json();
}

}  // namespace

TEST(BashSeparateStderr, AgentsSeeTheMergedOutputAsBefore) {
    BashHost h;
    json obs = h.must_complete("echo out; echo err >&2");
    EXPECT_EQ(content(obs), "out\nerr");
    EXPECT_FALSE(has_stderr_field(obs)) << obs.dump();
    // The same shell answers a tty question as before: all three are the terminal.
    obs = h.must_complete("test -t 0 && echo in; test -t 1 && echo out; test -t 2 && echo err");
    EXPECT_EQ(content(obs), "in\nout\nerr");
}

TEST(BashSeparateStderr, StderrInItsOwnFieldAndTheShellStateKept) {
    BashHost h;
    json obs = h.host().execute(separate("echo out; echo err >&2; (exit 3)"));
    EXPECT_EQ(content(obs), "out");
    EXPECT_EQ(obs["extras"].value("stderr", "<none>"), "err");
    EXPECT_EQ(exit_code(obs), 3);
    // bash's own errors are the command's stderr too.
    obs = h.host().execute(separate("no_such_command_xyz"));
    EXPECT_EQ(content(obs), "");
    EXPECT_TRUE(contains(obs["extras"].value("stderr", ""), "no_such_command_xyz: command not found")) << obs.dump();
    EXPECT_EQ(exit_code(obs), 127);
    // cwd, variables and functions persist across separate and plain commands alike.
    obs = h.host().execute(separate("cd /tmp && export KEPT=yes && greet() { echo hello \"$1\"; } && LOCAL=1"));
    EXPECT_EQ(exit_code(obs), 0) << obs.dump();
    EXPECT_EQ(obs["extras"]["metadata"].value("working_dir", ""), "/tmp");
    obs = h.must_complete("echo $KEPT $LOCAL $(pwd); greet plain");
    EXPECT_EQ(content(obs), "yes 1 /tmp\nhello plain");
    obs = h.host().execute(separate("greet separate; echo $KEPT >&2"));
    EXPECT_EQ(content(obs), "hello separate");
    EXPECT_EQ(obs["extras"].value("stderr", ""), "yes");
    // stdin and stdout stay the terminal; stderr is the pipe.
    obs = h.host().execute(separate("tty >/dev/null && echo in; test -t 1 && echo out; test -t 2 || echo err-is-a-pipe"));
    EXPECT_EQ(content(obs), "in\nout\nerr-is-a-pipe");
    EXPECT_EQ(obs["extras"].value("stderr", "<none>"), "");
}

// A background job keeps writing to its stderr after its command ended: it is neither blocked nor
// killed (the session holds the pipe open), and what it writes joins the terminal's output.
TEST(BashSeparateStderr, BackgroundJobOutlivesItsCommand) {
    BashHost h;
    const std::string done = h.wd() + "/job-done";
    json obs = h.host().execute(separate("(sleep 1; echo late >&2; head -c 200000 /dev/zero | tr '\\0' x >&2; touch " + done + ") &"));
    EXPECT_EQ(exit_code(obs), 0) << obs.dump();
    for (int i = 0; i < 100 && !std::filesystem::exists(done); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(std::filesystem::exists(done)) << "the job was blocked or killed";
    obs = h.must_complete("echo next");
    EXPECT_TRUE(contains(content(obs), "late")) << content(obs).substr(0, 200);
    EXPECT_TRUE(contains(content(obs), "next"));
}

// Followers of /stream see the marks; output of a plain command keeps the old event shape.
TEST(BashSeparateStderr, StreamEventsCarryTheMark) {
    BashHost h;
    h.must_complete("true", "follow");
    HttpResponse streamed;
    // The follower's answer is read only after join(); until then the loop asks this flag, not the body.
    std::atomic<bool> answered{false};
    std::thread follower([&] {
        Http http("127.0.0.1", h.host().port(), 60);
        streamed = http.get("/stream?session=follow&once=1");
        answered = true;
    });
    // Subscribed once an action's events reach it (nothing public says so earlier): bounded retries.
    for (int i = 0; i < 100 && !answered; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        h.host().execute(separate("echo to-out; echo to-err >&2; sleep 0.2"), "follow");
    }
    follower.join();
    const std::string &b = streamed.body;
    EXPECT_TRUE(contains(b, R"("stream":"stdout")")) << b;
    EXPECT_TRUE(contains(b, R"("chunk":"to-err\n","stream":"stderr")")) << b;

    HttpResponse plain;
    std::atomic<bool> answered2{false};
    std::thread follower2([&] {
        Http http("127.0.0.1", h.host().port(), 60);
        plain = http.get("/stream?session=follow&once=1");
        answered2 = true;
    });
    for (int i = 0; i < 100 && !answered2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        h.must_complete("echo merged; echo merged-err >&2; sleep 0.2", "follow");
    }
    follower2.join();
    EXPECT_TRUE(contains(plain.body, "merged-err")) << plain.body;
    EXPECT_FALSE(contains(plain.body, "\"stream\"")) << plain.body;
}

// C-c as input reaches a session whose blocking action still runs (the host lets only that key through
// beside it): the command stops, both requests answer, and the session takes the next command at once.
TEST(BashSeparateStderr, CtrlCReachesABusySession) {
    BashHost h;
    h.must_complete("true", "busy");
    auto running = std::async(std::launch::async, [&] { return execute_apart(h, separate("echo started; sleep 100"), "busy"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto sent = Clock::now();
    json key_action = run_action("C-c");
    key_action["args"]["is_input"] = true;
    key_action["timeout"] = 5;
    json key = execute_apart(h, key_action, "busy");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 5.0);
    EXPECT_EQ(exit_code(key), 130) << key.dump();
    EXPECT_TRUE(contains(suffix(key), "CTRL+C was sent")) << key.dump();
    ASSERT_EQ(running.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    json first = running.get();
    EXPECT_EQ(exit_code(first), 130) << first.dump();
    EXPECT_EQ(content(first), "started");
    const auto next = Clock::now();
    EXPECT_EQ(content(h.must_complete("echo ok", "busy")), "ok");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - next).count(), 5.0);
    // Any other input still waits its turn (OpenHands' one action at a time): not let through.
    auto quiet = std::async(std::launch::async, [&] { return execute_apart(h, separate("sleep 2; echo slept"), "busy"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    json typed = run_action("echo typed");
    typed["args"]["blocking"] = true;
    typed["timeout"] = 10;
    json after = execute_apart(h, typed, "busy");
    EXPECT_EQ(content(quiet.get()), "slept");
    EXPECT_EQ(content(after), "typed");
}

// A key sent beside a running call that reaches the shell itself, just before the command's next job
// takes the terminal, must still stop that job. Made deterministic here: an INT trap lets the shell take
// the C-c and go on (as bash does when the key lands between its fork of a job and handing it the
// terminal), then `sleep 100` takes the terminal. The plugin sees the terminal pass from the shell to a
// job after its key went, and sends the key once more.
TEST(BashSeparateStderr, AKeyThatReachedTheShellIsSentAgainToTheJobThatTookTheTerminal) {
    BashHost h;
    h.must_complete("true", "busy");
    json slow = run_action(
        "trap 'trap - INT; echo caught' INT; echo started; end=$((SECONDS+2)); while [ $SECONDS -lt $end ]; do :; done; "
        "sleep 100; echo never");
    slow["args"]["blocking"] = true;
    slow["timeout"] = 120;
    auto running = std::async(std::launch::async, [&] { return execute_apart(h, slow, "busy"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the shell is in its loop
    json key_action = run_action("C-c");
    key_action["args"]["is_input"] = true;
    key_action["timeout"] = 8;
    const auto sent = Clock::now();
    json key = execute_apart(h, key_action, "busy");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 8.0);
    EXPECT_TRUE(contains(suffix(key), "CTRL+C was sent")) << key.dump();
    ASSERT_EQ(running.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "sleep 100 never got the key";
    json first = running.get();
    EXPECT_TRUE(contains(content(first), "caught")) << first.dump();
    EXPECT_FALSE(contains(content(first), "never")) << first.dump();
    EXPECT_EQ(content(h.must_complete("echo ok", "busy")), "ok");
}

// `"tty": false` with `"open_stdin": true` through the host, its stdin fed by POST /stdin beside the
// running action (binary bytes as they are), then end of file; the route's refusals in words.
TEST(BashSeparateStderr, TtyLessCommandFedThroughPostStdin) {
    BashHost h;
    h.must_complete("true", "feed");
    json action = run_action("od -An -tx1 | tr -s ' \\n' ' '; echo; echo done >&2");
    action["args"]["tty"] = false;
    action["args"]["open_stdin"] = true;
    action["args"]["blocking"] = true;
    action["timeout"] = 60;
    auto running = std::async(std::launch::async, [&] { return execute_apart(h, action, "feed"); });
    Http http("127.0.0.1", h.host().port(), 30);
    HttpResponse first = http.request("POST", "/stdin?session=feed", std::string("\x01\x00\xff", 3), "application/octet-stream");
    EXPECT_EQ(first.status, 200) << first.body;
    EXPECT_EQ(json::parse(first.body), (json{{"written", 3}, {"closed", false}}));
    HttpResponse last = http.request("POST", "/stdin?session=feed&eof=1", "A", "application/octet-stream");
    EXPECT_EQ(json::parse(last.body), (json{{"written", 1}, {"closed", true}}));
    ASSERT_EQ(running.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    json obs = running.get();
    EXPECT_EQ(content(obs), "01 00 ff 41") << obs.dump();
    EXPECT_EQ(obs["extras"].value("stderr", ""), "done");
    EXPECT_EQ(exit_code(obs), 0);
    // No command reads stdin now: 409 after the short wait; bad words 400; GET 405.
    HttpResponse none = http.request("POST", "/stdin?session=feed", "x", "application/octet-stream");
    EXPECT_EQ(none.status, 409) << none.body;
    EXPECT_TRUE(contains(none.body, "reads its stdin")) << none.body;
    EXPECT_EQ(http.request("POST", "/stdin?eof=maybe", "", "application/octet-stream").status, 400);
    EXPECT_EQ(http.get("/stdin").status, 405);
    // open_stdin needs tty false: OpenHands' terminal commands take input through is_input.
    json bad = run_action("cat");
    bad["args"]["open_stdin"] = true;
    json refused = h.host().execute(bad, "feed");
    EXPECT_EQ(refused.value("observation", ""), "error") << refused.dump();
}
