// The bash plugin over HTTP: timeouts that never kill, input to running programs, keys, and the
// refusal of new commands while one still runs (OpenHands' BashSession texts and
// test_bash.py cases).
#include <thread>

#include "bash_test_util.hpp"

using namespace bashtest;

namespace {
const std::string kPython = "/usr/bin/python3";
}

TEST(BashInteractive, HttpServerHardTimeoutCtrlCAndPortReuse) {
    BashHost h;
    const int port = free_port();
    const std::string cmd = kPython + " -u -m http.server --bind 127.0.0.1 " + std::to_string(port);
    RunOpts o;
    o.timeout = 3;  // the peer's test uses 1 s; python may start slowly on a loaded machine
    o.blocking = true;
    const json first = h.run(cmd, o);
    EXPECT_EQ(exit_code(first), -1);
    EXPECT_TRUE(contains(content(first), "Serving HTTP on")) << content(first);
    EXPECT_EQ(suffix(first), "\n[The command timed out after 3.0 seconds. " + kTimeoutHelp + "]");
    EXPECT_EQ(prefix(first), "");
    EXPECT_TRUE(first["extras"]["metadata"]["username"].is_null());

    const json stop = h.input("C-c");
    EXPECT_EQ(exit_code(stop), 0);
    EXPECT_TRUE(contains(content(stop), "Keyboard interrupt received, exiting.")) << content(stop);
    EXPECT_EQ(suffix(stop), "\n[The command completed with exit code 0. CTRL+C was sent.]");
    EXPECT_EQ(stop["extras"]["command"], "C-c");

    const json again = h.run(cmd, o);  // the port was released: the server starts again
    EXPECT_TRUE(contains(content(again), "Serving HTTP on")) << content(again);
    EXPECT_EQ(exit_code(h.input("C-c")), 0);
}

TEST(BashInteractive, BackgroundJobKeepsRunningAfterTheActionReturns) {
    BashHost h;
    const int port = free_port();
    const json obs = h.run(kPython + " -m http.server --bind 127.0.0.1 " + std::to_string(port) + " > server.log 2>&1 &");
    EXPECT_EQ(exit_code(obs), 0);
    bool up = false;
    for (int i = 0; i < 200 && !up; ++i) {  // at most 20 s for python to start on a loaded machine
        up = can_connect(port);
        if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(up);
    EXPECT_EQ(content(h.run("echo next")), "next");  // the shell is free while the job runs
    const json pid = h.run("echo $!");
    EXPECT_EQ(pid["extras"]["metadata"]["pid"].get<int>(), std::stoi(content(pid)));
    h.run("kill %1");
}

// Between actions the session's reader thread takes the terminal back (after a short delay, see
// kReaderResumeDelay) and drains it: a background job writing far more than a terminal buffers is never
// left blocked, and its output reaches the next observation.
TEST(BashInteractive, ABackgroundJobWritingBetweenActionsIsNeverBlocked) {
    BashHost h;
    EXPECT_EQ(exit_code(h.run("(sleep 0.2; seq 1 100000; echo done > bg.flag) &")), 0);
    bool done = false;
    for (int i = 0; i < 100 && !done; ++i) {  // at most 10 s; the job itself takes well under 1 s
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        done = std::filesystem::exists(h.wd() + "/bg.flag");
    }
    EXPECT_TRUE(done) << "the background job stayed blocked on a full terminal";
    const json next = h.run("echo after");
    EXPECT_TRUE(contains(content(next), "100000")) << content(next).substr(0, 200);
    EXPECT_TRUE(contains(content(next), "after"));
}

TEST(BashInteractive, ReadPromptSoftTimeoutThenInput) {
    BashHost h(1);
    const json ask = h.run("read -p 'Enter name: ' name && echo \"Hello $name\"");
    EXPECT_EQ(exit_code(ask), -1);
    EXPECT_TRUE(contains(content(ask), "Enter name:")) << content(ask);
    EXPECT_EQ(suffix(ask), "\n[The command has no new output after 1 seconds. " + kTimeoutHelp + "]");
    const json done = h.input("John");
    EXPECT_TRUE(contains(content(done), "Hello John")) << content(done);
    EXPECT_EQ(suffix(done), "\n[The command completed with exit code 0.]");
    EXPECT_EQ(prefix(done), "");
}

TEST(BashInteractive, PythonInputTwiceAndAPlainCommandIsNotExecuted) {
    BashHost h(3);
    const json ask = h.run(kPython +
                           " -c \"name = input('Enter your name: '); age = input('Enter your age: '); "
                           "print(f'Hello {name}, you are {age} years old')\"");
    EXPECT_EQ(exit_code(ask), -1);
    EXPECT_TRUE(contains(content(ask), "Enter your name:")) << content(ask);

    const json refused = h.run("Alice");  // not is_input: refused while python waits
    EXPECT_EQ(exit_code(refused), -1);
    EXPECT_EQ(suffix(refused),
              "\n[Your command \"Alice\" is NOT executed. The previous command is still running - You CANNOT send new "
              "commands until the previous command is completed. By setting `is_input` to `true`, you can interact "
              "with the current process: " + kTimeoutHelp + "]");
    EXPECT_EQ(prefix(refused), "[Below is the output of the previous command.]\n");

    const json age = h.input("Alice");
    EXPECT_EQ(exit_code(age), -1);
    EXPECT_TRUE(contains(content(age), "Enter your age:")) << content(age);
    EXPECT_EQ(prefix(age), "[Below is the output of the previous command.]\n");
    const json done = h.input("25");
    EXPECT_EQ(exit_code(done), 0);
    EXPECT_TRUE(contains(content(done), "Hello Alice, you are 25 years old")) << content(done);
}

TEST(BashInteractive, StressHardTimeoutRefusalCtrlCThenCommand) {
    BashHost h;
    for (int round = 0; round < 10; ++round) {
        RunOpts o;
        o.timeout = 0.5;
        o.blocking = true;
        const json sleeping = h.run("sleep 30", o);
        ASSERT_EQ(exit_code(sleeping), -1) << round;
        EXPECT_EQ(suffix(sleeping), "\n[The command timed out after 0.5 seconds. " + kTimeoutHelp + "]");
        const json refused = h.run("ls");
        EXPECT_EQ(exit_code(refused), -1);
        EXPECT_TRUE(contains(suffix(refused), "Your command \"ls\" is NOT executed.")) << round;
        const json interrupted = h.input("C-c");
        EXPECT_EQ(exit_code(interrupted), 130) << round;
        EXPECT_EQ(suffix(interrupted), "\n[The command completed with exit code 130. CTRL+C was sent.]");
        const json ls = h.must_complete("ls");
        EXPECT_EQ(exit_code(ls), 0) << round;
    }
}

TEST(BashInteractive, ContinuationPrefixOneObservationPerFetch) {
    BashHost h(30);  // the soft timeout must not interfere with the hard one
    RunOpts o;
    o.timeout = 1.0;
    o.blocking = true;
    const json first = h.run("for i in 1 2 3 4 5; do echo $i; sleep 1.5; done", o);
    EXPECT_EQ(content(first), "1");
    EXPECT_EQ(prefix(first), "");
    EXPECT_TRUE(contains(suffix(first), "[The command timed out after 1.0 seconds."));
    std::string seen = content(first);
    bool completed = false;
    for (int i = 0; i < 20 && !completed; ++i) {
        const json next = h.run("", o);
        const std::string c = content(next);
        if (!c.empty()) seen += "\n" + c;
        if (exit_code(next) == 0) {
            completed = true;
            EXPECT_EQ(suffix(next), "\n[The command completed with exit code 0.]");
            EXPECT_EQ(prefix(next), "");
        } else {
            EXPECT_EQ(prefix(next), "[Below is the output of the previous command.]\n");
            EXPECT_TRUE(contains(suffix(next), "[The command timed out after 1.0 seconds."));
            EXPECT_LE(c.size(), 3u) << c;  // one number (two at most on a slow machine), never repeated output
        }
    }
    EXPECT_TRUE(completed);
    EXPECT_EQ(seen, "1\n2\n3\n4\n5");
}

TEST(BashInteractive, CtrlDEndsInputAndCtrlZStopsAJob) {
    BashHost h(1);
    const json cat = h.run("cat > typed.txt");
    EXPECT_EQ(exit_code(cat), -1);
    h.input("some text");
    const json eof = h.input("C-d");
    EXPECT_EQ(exit_code(eof), 0);
    EXPECT_EQ(suffix(eof), "\n[The command completed with exit code 0. CTRL+D was sent.]");
    EXPECT_EQ(content(h.run("cat typed.txt")), "some text");

    RunOpts o;
    o.timeout = 0.5;
    o.blocking = true;
    EXPECT_EQ(exit_code(h.run("sleep 60", o)), -1);
    const json stopped = h.input("C-z");
    EXPECT_EQ(exit_code(stopped), 148);
    EXPECT_TRUE(contains(content(stopped), "Stopped")) << content(stopped);
    EXPECT_EQ(suffix(stopped), "\n[The command completed with exit code 148. CTRL+Z was sent.]");
    EXPECT_TRUE(contains(content(h.run("jobs")), "sleep 60"));
    h.run("kill -9 %1");
}

TEST(BashInteractive, PagerAndEditorQuitWithKeys) {
    BashHost h(2);
    h.run("seq 1 5 > numbers.txt");
    const json less = h.run("less numbers.txt");
    EXPECT_EQ(exit_code(less), -1);
    EXPECT_TRUE(contains(content(less), "3")) << content(less);
    const json quit = h.input("q");
    EXPECT_EQ(exit_code(quit), 0);

    const json vim = h.run("vim -u NONE -N numbers.txt");
    EXPECT_EQ(exit_code(vim), -1);
    h.input(":s/1/one/");
    const json saved = h.input(":wq");
    EXPECT_EQ(exit_code(saved), 0) << content(saved);
    EXPECT_EQ(content(h.run("head -1 numbers.txt")), "one");
}

TEST(BashInteractive, PythonReplAnswersInput) {
    BashHost h(3);
    const json repl = h.run(kPython + " -q");
    EXPECT_EQ(exit_code(repl), -1);
    EXPECT_TRUE(contains(content(repl), ">>>")) << content(repl);
    const json answer = h.input("print(6 * 7)");
    EXPECT_EQ(exit_code(answer), -1);
    EXPECT_TRUE(contains(content(answer), "42")) << content(answer);
    const json bye = h.input("exit()");
    EXPECT_EQ(exit_code(bye), 0);
    EXPECT_EQ(content(h.run("echo back")), "back");
}

TEST(BashInteractive, NewCommandAfterTheTimedOutOneFinishedRuns) {
    BashHost h;
    RunOpts o;
    o.timeout = 0.3;
    o.blocking = true;
    EXPECT_EQ(exit_code(h.run("sleep 1; echo late", o)), -1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    // The old command completed meanwhile: a new command is executed, not refused.
    const json obs = h.must_complete("echo fresh");
    EXPECT_EQ(exit_code(obs), 0);
    EXPECT_TRUE(contains(content(obs), "fresh"));
    EXPECT_EQ(content(h.run("echo clean")), "clean");
}
