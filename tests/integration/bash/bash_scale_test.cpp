// The bash plugin over HTTP: large outputs in bounded memory, live streaming, named sessions in
// parallel, shutdown, and running as another user.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <future>
#include <thread>

#include "bash_test_util.hpp"
#include "support/sanitizers.hpp"
#include "support/http.hpp"
#include "support/proc_file.hpp"

using namespace bashtest;


TEST(BashScale, FiveThousandLinesAreTruncatedWithTheMarker) {
    BashHost h;
    const json obs = h.must_complete("for i in $(seq 1 5000); do echo \"Line $i\"; done");
    EXPECT_EQ(exit_code(obs), 0);
    const std::string c = content(obs);
    EXPECT_EQ(c.substr(0, 14), "Line 1\nLine 2\n");
    EXPECT_TRUE(contains(c, "\n[... Observation truncated due to length ...]\n"));
    EXPECT_EQ(c.substr(c.size() - 9), "Line 5000");
}

TEST(BashScale, FiftyThousandLinesKeepFirstAndLastHalves) {
    BashHost h;
    const json obs = h.must_complete("for i in {1..50000}; do echo \"Line $i\"; done");
    EXPECT_EQ(exit_code(obs), 0);
    const std::string c = content(obs);
    const std::string marker = "\n[... Observation truncated due to length ...]\n";
    ASSERT_TRUE(contains(c, marker));
    EXPECT_EQ(c.size(), 30000 + marker.size());  // ASCII: characters are bytes
    EXPECT_EQ(c.substr(0, 7), "Line 1\n");
    EXPECT_TRUE(contains(c, "Line 49999\nLine 50000"));
    EXPECT_EQ(c.substr(c.size() - 10), "Line 50000");
    EXPECT_EQ(prefix(obs), "");  // every byte was seen: no "previous outputs are truncated" prefix
}

TEST(BashScale, HundredMegabytesOfOutputInBoundedMemory) {
    BashHost h;
    h.must_complete("echo warm");
    const long before = actionhost::testing::resident_kib(h.host().pid());
    const json obs = h.must_complete("yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 100000000; echo; echo END");
    const long after = actionhost::testing::resident_kib(h.host().pid());
    EXPECT_EQ(exit_code(obs), 0);
    const std::string c = content(obs);
    EXPECT_TRUE(contains(c, "[... Observation truncated due to length ...]"));
    EXPECT_EQ(c.substr(c.size() - 3), "END");
    EXPECT_LT(c.size(), 31000u);
    ASSERT_GT(before, 0);
    // (Not under ASan: its quarantine holds up to 256 MB of freed memory on purpose; the plain build checks.)
    if (!actionhost::testing::kAddressSanitizer) {
        EXPECT_LT(after - before, 64 * 1024) << "host RSS grew from " << before << " KiB to " << after << " KiB";
    }
}

TEST(BashScale, OutputStreamsLiveOverServerSentEvents) {
    BashHost h;
    auto action = std::async(std::launch::async, [&] {
        actionhost::testing::Http client("127.0.0.1", h.host().port());
        const std::string body =
            json{{"action", run_action("echo tick0; sleep 1; echo tick1; sleep 0.3; echo tick2")}}.dump();
        return client.post_json("/execute_action", body);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the action is under way
    actionhost::testing::Http follower("127.0.0.1", h.host().port(), 60);
    const auto events = follower.get("/stream?once=1");
    const auto done = action.get();
    ASSERT_EQ(done.status, 200);
    EXPECT_EQ(json::parse(done.body)["content"], "tick0\ntick1\ntick2");  // the final observation is unchanged
    EXPECT_EQ(events.status, 200);
    EXPECT_TRUE(contains(events.body, "event: output")) << events.body;
    EXPECT_TRUE(contains(events.body, "tick2")) << events.body;
    EXPECT_TRUE(contains(events.body, "event: action_end")) << events.body;
}

TEST(BashScale, NamedSessionsAreSeparateShellsRunningInParallel) {
    BashHost h;
    h.run("mkdir -p one two");
    RunOpts a;
    a.session = "a";
    RunOpts b;
    b.session = "b";
    h.run("cd one && export WHO=a", a);
    h.run("cd two && export WHO=b", b);
    EXPECT_EQ(content(h.run("echo $WHO; pwd", a)), "a\n" + h.wd() + "/one");
    EXPECT_EQ(content(h.run("echo $WHO; pwd", b)), "b\n" + h.wd() + "/two");
    EXPECT_EQ(content(h.run("echo \"[$WHO]\"; pwd")), "[]\n" + h.wd());  // the default session is untouched

    // A slow command in one session does not hold up another.
    auto slow = std::async(std::launch::async, [&] {
        actionhost::testing::Http client("127.0.0.1", h.host().port());
        RunOpts o;
        o.timeout = 30;
        o.blocking = true;
        const json body = {{"action", run_action("sleep 2; echo slow done", o)}, {"session", "a"}};
        return client.post_json("/execute_action", body.dump());
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(content(h.run("echo quick", b)), "quick");
    const double quick_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(quick_s, 1.5);
    const auto r = slow.get();
    EXPECT_EQ(json::parse(r.body)["content"], "slow done");
}

TEST(BashScale, ShutdownKillsShellsAndJobsAndEndsRunningActions) {
    BashHost h;
    const int shell_pid = std::stoi(content(h.run("echo $$")));
    h.run("sleep 1000 &");  // an interactive shell reports "[1] <pid>"
    const int job_pid = h.run("true")["extras"]["metadata"]["pid"].get<int>();
    const int named_pid = std::stoi(content(h.run("echo $$", RunOpts{.session = "other"})));
    ASSERT_TRUE(process_exists(shell_pid));
    ASSERT_TRUE(process_exists(job_pid));
    auto running = std::async(std::launch::async, [&] {
        actionhost::testing::Http client("127.0.0.1", h.host().port());
        RunOpts o;
        o.timeout = 100;
        o.blocking = true;
        try {
            return client.post_json("/execute_action", json{{"action", run_action("sleep 100", o)}}.dump()).status;
        } catch (...) {
            return -1;  // the connection may close as the host exits
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto t0 = std::chrono::steady_clock::now();
    const int status = h.host().stop();
    const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(stop_s, 5.0) << "status " << status;  // no SIGKILL fallback needed
    running.wait_for(std::chrono::seconds(10));
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        gone = !process_exists(shell_pid) && !process_exists(job_pid) && !process_exists(named_pid);
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(gone);
}

TEST(BashScale, RunsAsTheOpenhandsUserWhenTheHostCreatesIt) {
    if (geteuid() != 0) GTEST_SKIP() << "switching user needs a root host";
    if (access("/usr/sbin/useradd", X_OK) != 0 && getpwnam("openhands") == nullptr)
        GTEST_SKIP() << "no useradd to create the openhands user";
    int uid = 0;
    if (const passwd *pw = getpwnam("openhands")) {
        uid = static_cast<int>(pw->pw_uid);
    } else {
        for (uid = 1000; uid < 60000 && getpwuid(static_cast<uid_t>(uid)) != nullptr; ++uid) {
        }
    }
    // The user must be able to reach the working dir: TempDir makes 0700 directories.
    TempDir base("ahbashoh");
    chmod(base.path().c_str(), 0755);
    HostOptions o;
    o.working_dir = base / "workspace";
    o.as_current_user = false;
    o.args = {"--username", "openhands", "--user-id", std::to_string(uid)};
    std::unique_ptr<BashHost> h;
    try {
        h = std::make_unique<BashHost>(3, o);
    } catch (const std::exception &e) {
        GTEST_SKIP() << "the host could not run as openhands here: " << e.what();
    }
    EXPECT_EQ(content(h->run("whoami")), "openhands");
    EXPECT_EQ(content(h->run("echo $HOME")), "/home/openhands");
    EXPECT_EQ(content(h->run("pwd")), h->wd());
    EXPECT_EQ(content(h->run("touch mine && stat -c %U mine")), "openhands");
    const json obs = h->run("id -u");
    EXPECT_EQ(content(obs), std::to_string(uid));
    EXPECT_EQ(obs["extras"]["metadata"]["username"], "openhands");
}
