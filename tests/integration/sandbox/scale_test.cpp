// A hundred sandboxes at once, and the ways a sandbox ends badly, through ahctl and the client
// library: all start, all answer, stop-all is quick, and whatever the path nothing is left on the
// machine (run directories, cgroups, state records, processes, mounts) after the next ahctl call.
// Registered as root and as the unprivileged user nobody (tests/integration/security's scheme).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/fleet.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "fleet_harness.hpp"
#include "runtime_harness.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"

using namespace scale_test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr size_t kFleet = 100;  // CI-sized; bench/runtimes/density_bench.cpp goes to 1000

bool wait_for(const std::function<bool()> &ready, double timeout_s) {
    for (int i = 0; i < static_cast<int>(timeout_s * 1000); ++i) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

bool any_entry(const std::string &dir, const std::string &prefix, const std::string &suffix = "") {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename();
        if (name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            return true;
    }
    return false;
}

}  // namespace

TEST(Scale, AHundredSandboxesStartAnswerAndStopTogetherLeavingNothing) {
    Fleet fleet;
    // Commands run as the sandbox's root here, not as `openhands`: a login shell of another user starts
    // from a fresh environment (as OpenHands' `su -`), and each answer must name its own sandbox through
    // the host's OPENHANDS_SESSION_ID.
    Ahctl started = fleet.ahctl({"--set", "core.run_as_openhands=false", "start", "--count", std::to_string(kFleet)}, 600);
    ASSERT_EQ(started.code, 0) << started.err;
    const auto ids = lines_of(started.out);
    ASSERT_EQ(ids.size(), kFleet) << started.out << started.err;

    Ahctl ran = fleet.ahctl({"run", "--all", "--json", "--", "echo", "hi from $OPENHANDS_SESSION_ID"}, 600);
    EXPECT_EQ(ran.code, 0) << ran.err;
    const auto lines = lines_of(ran.out);
    ASSERT_EQ(lines.size(), kFleet) << ran.out << ran.err;
    for (const auto &line : lines) {
        json r = json::parse(line);
        EXPECT_EQ(r["exit_code"], 0) << line;
        EXPECT_EQ(r["observation"].value("content", ""), "hi from " + r.value("session_id", "")) << line;
    }

    Ahctl ps = fleet.ahctl({"ps", "--json"});
    ASSERT_EQ(ps.code, 0) << ps.err;
    json listed = json::parse(ps.out);
    ASSERT_EQ(listed.size(), kFleet);
    for (const auto &r : listed) EXPECT_EQ(r.value("state", ""), "alive") << r.dump();

    Ahctl stopped = fleet.ahctl({"stop", "--all"}, 120);
    EXPECT_EQ(stopped.code, 0) << stopped.err;
    EXPECT_EQ(lines_of(stopped.out).size(), kFleet);
    // No fixed wait per sandbox (~0.6 s for 100 in the plain build); ahctl and 100 hosts under ASan,
    // beside another test, take several seconds.
    EXPECT_LE(stopped.seconds, 5.0 * actionhost::testing::kSanitizerTimeFactor) << "stop --all of " << kFleet << " sandboxes";
    EXPECT_EQ(fleet.leftovers(ids), "");
}

// The library's own parallel lifecycle, without ahctl and without keeping anything alive.
TEST(Scale, TheClientLibraryStartsRunsAndClosesManyAtOnce) {
    Fleet fleet;
    setenv("TMPDIR", fleet.tmp().c_str(), 1);
    auto options = runtimes_test::test_runtime_options("sandbox", "", fleet.state());
    options.config.set("core.workspace_base", "");  // each its own temporary workspace
    auto started = actionhost::client::start_runtimes(options, 20, 4);
    std::vector<std::string> ids;
    for (const auto &s : started) {
        ASSERT_TRUE(s.runtime) << s.error;
        ids.push_back(s.runtime->session_id());
    }
    std::vector<int> codes(started.size(), -1);
    actionhost::client::for_each_concurrently(started.size(), 4, [&](size_t i) {
        codes[i] = runtimes_test::exit_code(runtimes_test::run(*started[i].runtime, "test -d /workspace && exit 7"));
    });
    for (int code : codes) EXPECT_EQ(code, 7);
    actionhost::client::for_each_concurrently(started.size(), 4, [&](size_t i) { started[i].runtime->close(); });
    setenv("TMPDIR", "/tmp", 1);
    EXPECT_EQ(fleet.leftovers(ids), "");
}

// kill -9 of ahctl at every stage of a start, kept-alive or not: what it had made ends with it, and
// the next ahctl call removes what could not remove itself.
TEST(Scale, AClientKilledMidStartLeavesNothingAfterTheNextCall) {
    Fleet fleet;
    struct Stage {
        const char *name;
        std::function<bool()> reached;
    };
    auto run_dir = [&] { return any_entry(fleet.tmp(), "ah-sandbox-"); };
    auto listening = [&] {
        std::error_code ec;
        for (const auto &e : fs::directory_iterator(fleet.tmp(), ec))
            if (fs::exists(e.path() / "ports/port")) return true;
        return false;
    };
    auto recorded = [&] { return any_entry(fleet.state(), "sandbox-", ".backend.json"); };
    const std::vector<Stage> stages = {{"run directory made", run_dir}, {"host listening", listening}, {"backend record written", recorded}};
    for (const bool keep : {true, false}) {
        for (const auto &stage : stages) {
            if (!keep && std::string(stage.name) == "backend record written") continue;  // none without keep
            SCOPED_TRACE(std::string(keep ? "ahctl start, " : "ahctl run, ") + stage.name);
            const std::vector<std::string> args = keep ? std::vector<std::string>{"start"} : std::vector<std::string>{"run", "--", "sleep", "60"};
            const pid_t client = fleet.ahctl_in_background(args, fleet.tmp() + "/killed.out");
            const bool reached = wait_for(stage.reached, 60);
            kill(client, SIGKILL);
            waitpid(client, nullptr, 0);
            EXPECT_TRUE(reached) << "the start never got there";
            // Killed a few instructions late, the start was complete (its record written, its marker
            // gone): then it is a kept-alive runtime like any other, listed alive.
            std::vector<std::string> sids;
            bool marker = any_entry(fleet.state(), "", ".starting");
            std::error_code ec;
            for (const auto &e : fs::directory_iterator(fleet.state(), ec)) {
                const std::string name = e.path().filename();
                if (name.ends_with(".json") && !name.ends_with(".backend.json")) sids.push_back(name.substr(0, name.size() - 5));
            }
            Ahctl next = fleet.ahctl({"ps"});
            EXPECT_EQ(next.code, 0) << next.err;
            if (!sids.empty() && !marker) {
                EXPECT_NE(next.out.find(sids[0] + " "), std::string::npos) << next.out;
                EXPECT_NE(next.out.find(" alive "), std::string::npos) << next.out;
                EXPECT_EQ(fleet.ahctl({"stop", sids[0]}).code, 0);
            } else {
                EXPECT_EQ(lines_of(next.out).size(), 1u) << "ps lists a runtime: " << next.out;
            }
            EXPECT_EQ(fleet.leftovers(sids), "");
        }
    }
}

// A sandbox whose pid 1 is stopped (or hung) no longer answers, yet ps says so and stop ends it at once;
// the same for a stopped ah-sandbox-init, and for one killed with SIGKILL (nobody left to clean up).
TEST(Scale, AStoppedOrKilledSandboxIsToldAndEndedAtOnce) {
    Fleet fleet;
    for (const char *how : {"pid 1 stopped", "ah-sandbox-init stopped", "ah-sandbox-init killed"}) {
        SCOPED_TRACE(how);
        Ahctl started = fleet.ahctl({"start"});
        ASSERT_EQ(started.code, 0) << started.err;
        const std::string sid = lines_of(started.out).at(0);
        const pid_t init = init_of(fleet, sid);
        const pid_t pid1 = pid1_of(init);
        ASSERT_GT(init, 0);
        ASSERT_GT(pid1, 0);
        const std::string what = how;
        if (what == "pid 1 stopped") {
            ASSERT_EQ(kill(pid1, SIGSTOP), 0);
            Ahctl ps = fleet.ahctl({"ps", "--json"});
            json listed = json::parse(ps.out);
            ASSERT_EQ(listed.size(), 1u) << ps.out;
            EXPECT_EQ(listed[0].value("state", ""), "unresponsive") << ps.out;
        } else if (what == "ah-sandbox-init stopped") {
            ASSERT_EQ(kill(init, SIGSTOP), 0);
        } else {
            ASSERT_EQ(kill(init, SIGKILL), 0);
        }
        Ahctl stop = fleet.ahctl({"stop", sid});
        if (what != "ah-sandbox-init killed") {
            EXPECT_EQ(stop.code, 0) << stop.err;
            EXPECT_EQ(stop.out, sid + "\n");
            EXPECT_LT(stop.seconds, 2.0 * actionhost::testing::kSanitizerTimeFactor);
        }
        EXPECT_EQ(fleet.leftovers({sid}), "");
    }
}

// Interrupted (Ctrl-C) in the middle of a command: the sandbox ends with ahctl, the rest goes at the next call.
TEST(Scale, AnInterruptedRunLeavesNothingAfterTheNextCall) {
    Fleet fleet;
    const pid_t client = fleet.ahctl_in_background({"run", "--", "sleep", "60"}, fleet.tmp() + "/interrupted.out");
    ASSERT_TRUE(wait_for([&] { return any_entry(fleet.tmp(), "ah-sandbox-") && fs::exists(fleet.tmp()); }, 60));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the command
    kill(client, SIGINT);
    int status = 0;
    waitpid(client, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) || WEXITSTATUS(status) != 0);
    Ahctl next = fleet.ahctl({"ps"});
    EXPECT_EQ(next.code, 0) << next.err;
    EXPECT_EQ(fleet.leftovers({}), "");
}

// After a reboot every sandbox is gone at once, while their records stay (and /tmp may keep their
// run directories): the pid a record names may even run again as another process. The next ahctl call
// recognises all of it as dead and removes it.
TEST(Scale, WhatAnEarlierBootLeftIsRemovedByTheNextCall) {
    Fleet fleet;
    Ahctl started = fleet.ahctl({"start"});
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string live = lines_of(started.out).at(0);
    // Records of a sandbox of an earlier boot, whose pid is now this test's (a live process).
    const std::string sid = "earlierboot0123456789";
    const std::string run_dir = fleet.tmp() + "/ah-sandbox-earlierboot01234-Ab12Cd";
    fs::create_directories(run_dir + "/workspace/sub");
    actionhost::testing::write_file(run_dir + "/owner.lock", "");  // nobody holds it
    actionhost::testing::write_file(fleet.state() + "/" + sid + ".json",
                                    json{{"session_id", sid}, {"runtime", "sandbox"}, {"url", "unix://" + run_dir + "/api.sock"},
                                         {"started_at", 1}}.dump());
    actionhost::testing::write_file(fleet.state() + "/sandbox-" + sid + ".backend.json",
                                    json{{"pid", getpid()}, {"pid_start", 1}, {"boot_id", "00000000-0000-0000-0000-000000000000"},
                                         {"run_dir", fleet.tmp() + "/ah-sandbox-gone-with-the-reboot"}, {"cgroup", "ah-earlierboot01234-Ab12Cd"}}
                                        .dump());
    actionhost::testing::write_file(fleet.state() + "/.sandbox-boot-id", "00000000-0000-0000-0000-000000000000\n");
    // Any call: here one that reattaches to the live sandbox and runs a command in it.
    Ahctl next = fleet.ahctl({"-s", live, "run", "--", "true"});
    EXPECT_EQ(next.code, 0) << next.err;
    EXPECT_FALSE(fs::exists(run_dir));
    EXPECT_FALSE(fs::exists(fleet.state() + "/sandbox-" + sid + ".backend.json"));
    EXPECT_FALSE(fs::exists(fleet.state() + "/" + sid + ".json"));
    Ahctl ps = fleet.ahctl({"ps"});
    EXPECT_EQ(lines_of(ps.out).size(), 2u) << ps.out;  // the header and the live one
    EXPECT_NE(ps.out.find(live), std::string::npos) << ps.out;
    EXPECT_EQ(fleet.ahctl({"stop", live}).code, 0);
    EXPECT_EQ(fleet.leftovers({live, sid}), "");
}

// The local backend's temporary directories too: its run directory and the workspace it made for a
// host whose client was killed are gone after the next call. (The host's own bash plugin leaves
// <TMPDIR>/actionhost-bash-* when the host is SIGKILLed: not this test's concern.)
TEST(Scale, ALocalHostKilledWithItsClientLeavesNoDirectoryAfterTheNextCall) {
    Fleet fleet;
    const pid_t client = fleet.ahctl_in_background({"-r", "local", "run", "--", "sleep", "60"}, fleet.tmp() + "/local.out");
    ASSERT_TRUE(wait_for([&] { return any_entry(fleet.tmp(), "openhands-workspace-") && any_entry(fleet.tmp(), "actionhost-bash-"); }, 60));
    kill(client, SIGKILL);
    waitpid(client, nullptr, 0);
    Ahctl next = fleet.ahctl({"-r", "local", "ps"});
    EXPECT_EQ(next.code, 0) << next.err;
    EXPECT_FALSE(any_entry(fleet.tmp(), "ah-local-"));
    EXPECT_FALSE(any_entry(fleet.tmp(), "openhands-workspace-"));
}
