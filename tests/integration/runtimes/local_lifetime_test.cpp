// Lifetimes of the `local` runtime (sandbox.lifetime, idle_timeout, idle_action; docs/runtimes.md,
// "Lifetimes"), kept by ah-local-keeper, a detached process of the client's user: a kept-alive host ends
// on time — after its client process has exited too — and leaves nothing (host, its shells' processes,
// keeper, run directory, temporary workspace, records, socket, freezer group); extending moves the end,
// through the client API and `ahctl extend` (`ahctl ps` shows the time left); an idle host is frozen
// whole and the next request — a plain wire client, no resume call, no retry — thaws it; idle "stop"
// ends it; closing a host that is not kept ends its keeper with it; careless values are refused before
// anything starts. Lifetimes of 2-4 s; every wait bounded.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/client/wire_client.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::client::Runtime;
using actionhost::client::RuntimeError;
using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

json read_json(const std::string &path) {
    std::ifstream in(path);
    return json::parse(in, nullptr, false);
}

// What a local host is on the machine, read while it runs.
struct Traces {
    std::string state_dir, sid, run_dir, temp_workspace, backend_record, client_record, keeper_record, keeper_socket, freezer;
    pid_t host = -1, keeper = -1, shell_job = -1;
};

Traces traces_of(const std::string &state_dir, const std::string &sid) {
    Traces t;
    t.state_dir = state_dir;
    t.sid = sid;
    t.backend_record = state_dir + "/local-" + sid + ".backend.json";
    t.client_record = state_dir + "/" + sid + ".json";
    t.keeper_record = state_dir + "/local-" + sid + ".keeper.json";
    t.keeper_socket = state_dir + "/local-" + sid + ".keeper.sock";
    const json record = read_json(t.backend_record);
    t.host = record.value("pid", -1);
    t.run_dir = record.value("run_dir", "");
    t.temp_workspace = record.value("temp_workspace", "");
    t.keeper = read_json(t.keeper_record).value("pid", -1);
    t.freezer = "/sys/fs/cgroup/freezer/actionhost/local-" + fs::path(t.run_dir).filename().string().substr(std::string("ah-local-").size());
    return t;
}

// Not a zombie: the host may be this test's child, the keeper is init's once detached.
bool process_exists(pid_t pid) {
    if (pid <= 0) return false;
    ::waitpid(pid, nullptr, WNOHANG);
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z' && text[close + 2] != 'X';
}

char state_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

std::string freezer_state(const Traces &t) {
    std::ifstream in(t.freezer + "/freezer.state");
    std::string state;
    in >> state;
    return state;
}

// Waits up to `limit` for the host to be gone; the seconds it took, or -1.
double wait_gone(const Traces &t, std::chrono::seconds limit) {
    const auto t0 = Clock::now();
    while (Clock::now() - t0 < limit) {
        if (!process_exists(t.host) && !process_exists(t.keeper) && !fs::exists(t.run_dir) && !fs::exists(t.keeper_record))
            return std::chrono::duration<double>(Clock::now() - t0).count();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
}

void expect_nothing_left(const Traces &t) {
    EXPECT_FALSE(process_exists(t.host)) << "host " << t.host;
    EXPECT_FALSE(process_exists(t.keeper)) << "keeper " << t.keeper;
    if (t.shell_job > 0) {
        EXPECT_FALSE(process_exists(t.shell_job)) << "a command's process " << t.shell_job;
    }
    EXPECT_FALSE(fs::exists(t.run_dir)) << t.run_dir;
    if (!t.temp_workspace.empty()) {
        EXPECT_FALSE(fs::exists(t.temp_workspace)) << t.temp_workspace;
    }
    for (const auto &path : {t.backend_record, t.client_record, t.keeper_record, t.keeper_socket}) EXPECT_FALSE(fs::exists(path)) << path;
    EXPECT_FALSE(fs::exists(t.freezer)) << t.freezer;
}

// The same for a host that is not kept: its pid and run directory from the runtime itself.
Traces traces_of_running(StartedRuntime &s) {
    Traces t;
    const std::string sid = s.runtime->session_id(), state_dir = s.state->path();
    t.keeper_record = state_dir + "/local-" + sid + ".keeper.json";
    t.keeper = read_json(t.keeper_record).value("pid", -1);
    const std::string id = s.runtime->runtime_id();  // "local-<pid>"
    t.host = std::atoi(id.substr(id.find('-') + 1).c_str());
    return t;
}

std::unique_ptr<StartedRuntime> kept_local(const std::function<void(Config &)> &keys) {
    return start_runtime("local", [&](Config &c) {
        c.set("sandbox.keep_runtime_alive", true);
        keys(c);
    });
}

// The session's runtime as a later client process makes it: not connected.
std::unique_ptr<Runtime> later_client(StartedRuntime &s) {
    auto options = test_runtime_options("local", s.workspace->path(), s.state->path());
    options.session_id = s.runtime->session_id();
    options.config.set("sandbox.keep_runtime_alive", true);
    return Runtime::create(options);
}

// The pid a `CMD & echo $!` printed: its last line (an interactive shell says "[1] PID" first).
pid_t job_pid(const json &obs) {
    const std::string content = obs.value("content", "");
    return std::atoi(content.substr(content.find_last_of('\n') == std::string::npos ? 0 : content.find_last_of('\n') + 1).c_str());
}

// A kept-alive host a failed assertion would leave running (frozen, even): stopped at the end of the
// test whatever happened. Declared after the StartedRuntime, so its state directory is still there.
struct StopAtEnd {
    StartedRuntime &s;
    ~StopAtEnd() {
        try {
            later_client(s)->stop_kept_alive();
        } catch (...) {
        }
    }
};

actionhost::testing::ProcessResult ahctl(const std::string &state_dir, const std::string &args) {
    return actionhost::testing::run_process(
        {"/bin/bash", "-c", "'" + actionhost::testing::build_path("bin/ahctl") + "' --state-dir '" + state_dir + "' " + args + " 2>&1"}, 60,
        {"HOME=" + state_dir});
}

}  // namespace

TEST(LocalLifetime, AKeptAliveHostEndsOnTimeAndLeavesNothing) {
    const auto started = Clock::now();
    // No workspace_base: the backend makes a temporary workspace, which the end removes too.
    auto s = kept_local([](Config &c) {
        c.set("core.workspace_base", "");
        c.set("sandbox.lifetime", 4);
    });
    StopAtEnd stop_at_end{*s};
    Traces t = traces_of(s->state->path(), s->runtime->session_id());
    ASSERT_GT(t.host, 0);
    ASSERT_GT(t.keeper, 0);
    EXPECT_FALSE(t.temp_workspace.empty());
    EXPECT_EQ(fs::status(t.keeper_socket).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    // A command's process in the shell's session, outside the host's process group.
    const json job = run(*s->runtime, "sleep 300 >/dev/null 2>&1 & echo $!");
    t.shell_job = job_pid(job);
    ASSERT_TRUE(process_exists(t.shell_job)) << job.dump();
    const json state = s->runtime->lifetime();
    EXPECT_EQ(state.value("lifetime_s", 0), 4);
    EXPECT_GT(state.value("time_left_s", 0.0), 0.5);
    EXPECT_TRUE(state["idle_timeout_s"].is_null());
    s->runtime->close();  // kept: from here no client is connected
    ASSERT_TRUE(process_exists(t.host));
    ASSERT_GE(wait_gone(t, std::chrono::seconds(15)), 0) << "still there 15 s later";
    EXPECT_GE(std::chrono::duration<double>(Clock::now() - started).count(), 3.9);
    expect_nothing_left(t);
    EXPECT_THROW(later_client(*s)->lifetime(), RuntimeError);  // no running host for the session
}

// ahctl starts the host and exits: the keeper, detached, ends the host without any client.
TEST(LocalLifetime, AHostEndsAfterItsClientProcessExitedAndAhctlExtendsIt) {
    actionhost::testing::TempDir state("ahrt-state"), workspace("ahrt-ws");
    auto started = ahctl(state.path(), "-r local -w '" + workspace.path() + "' --set sandbox.lifetime=3 --keep start");
    ASSERT_EQ(started.exit_code, 0) << started.output;
    std::string id;
    for (size_t at = 0, next; at < started.output.size(); at = next + 1) {  // the last line is the session id
        next = started.output.find('\n', at);
        if (next == std::string::npos) next = started.output.size();
        const std::string line = started.output.substr(at, next - at);
        if (!line.empty() && line.rfind("[ahctl]", 0) != 0) id = line;
    }
    ASSERT_FALSE(id.empty()) << started.output;
    struct AhctlStop {
        std::string state, id;
        ~AhctlStop() { ahctl(state, "stop " + id); }  // after a failed assertion; a no-op once it ended
    } stop_at_end{state.path(), id};
    const Traces t = traces_of(state.path(), id);
    ASSERT_TRUE(process_exists(t.keeper));
    auto extended = ahctl(state.path(), "extend " + id + " 3");
    EXPECT_EQ(extended.exit_code, 0) << extended.output;
    EXPECT_NE(extended.output.find(" left (until "), std::string::npos) << extended.output;
    auto ps = ahctl(state.path(), "ps");
    EXPECT_NE(ps.output.find("LEFT"), std::string::npos) << ps.output;
    EXPECT_NE(ps.output.find(id), std::string::npos) << ps.output;
    EXPECT_EQ(ahctl(state.path(), "extend " + id + " 0").exit_code, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));  // past the first end
    EXPECT_TRUE(process_exists(t.host)) << "ended at its first deadline";
    ASSERT_GE(wait_gone(t, std::chrono::seconds(10)), 0);
    expect_nothing_left(t);
    EXPECT_EQ(ahctl(state.path(), "ps").output.find(id), std::string::npos);
}

TEST(LocalLifetime, ExtendingThroughTheClientApiMovesTheEnd) {
    auto s = kept_local([](Config &c) { c.set("sandbox.lifetime", 3); });
    StopAtEnd stop_at_end{*s};
    const Traces t = traces_of(s->state->path(), s->runtime->session_id());
    s->runtime->close();
    auto later = later_client(*s);
    for (long long bad : {0LL, -5LL, 1'000'000'000'000LL}) EXPECT_THROW(later->extend(bad), std::invalid_argument) << bad;
    const json after = later->extend(4);
    EXPECT_GT(after.value("time_left_s", 0.0), 4.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(4000));  // past the first end
    EXPECT_TRUE(process_exists(t.host));
    EXPECT_TRUE(fs::exists(t.run_dir));
    ASSERT_GE(wait_gone(t, std::chrono::seconds(10)), 0);
    expect_nothing_left(t);
}

TEST(LocalLifetime, AnIdleHostIsFrozenWholeAndTheNextRequestThawsIt) {
    auto s = kept_local([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "pause");
    });
    StopAtEnd stop_at_end{*s};
    Traces t = traces_of(s->state->path(), s->runtime->session_id());
    const json job = run(*s->runtime, "sleep 300 >/dev/null 2>&1 & echo $!");
    t.shell_job = job_pid(job);
    ASSERT_TRUE(process_exists(t.shell_job)) << job.dump();
    const std::string url = s->runtime->url();
    const auto record = actionhost::client::StateStore(s->state->path()).get(s->runtime->session_id());
    ASSERT_TRUE(record);
    s->runtime->close();  // its connection goes with it
    // Root: the freezer group holds the host and the command of its shell (another session); without
    // root every process of the tree is stopped.
    const bool freezer = geteuid() == 0 && fs::exists("/sys/fs/cgroup/freezer");
    auto paused = [&] { return freezer ? freezer_state(t) == "FROZEN" : state_of(t.host) == 'T' && state_of(t.shell_job) == 'T'; };
    bool frozen = false;
    for (int i = 0; i < 100 && !frozen; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(100))) frozen = paused();
    ASSERT_TRUE(frozen) << freezer_state(t) << " " << state_of(t.host);
    if (freezer) {
        std::ifstream procs(t.freezer + "/cgroup.procs");
        std::set<pid_t> inside;
        for (long pid = 0; procs >> pid;) inside.insert(static_cast<pid_t>(pid));
        EXPECT_TRUE(inside.count(t.host));
        EXPECT_TRUE(inside.count(t.shell_job)) << "the shell's command is not in the freezer group";
    }
    EXPECT_TRUE(later_client(*s)->lifetime().value("paused", false));  // asking the keeper leaves it paused
    EXPECT_TRUE(paused());
    // A plain wire client, as any program of OpenHands' would send it: no resume call, no retry.
    const auto t0 = Clock::now();
    actionhost::client::WireClient wire(url, record->value("session_api_key", ""));
    const json obs = wire.execute({{"action", "run"}, {"args", {{"command", "echo resumed"}, {"blocking", true}}}});
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
    EXPECT_NE(obs.value("content", "").find("resumed"), std::string::npos) << obs.dump();
    EXPECT_FALSE(paused());
    EXPECT_NE(state_of(t.shell_job), 'T');
    later_client(*s)->stop_kept_alive();
    ASSERT_GE(wait_gone(t, std::chrono::seconds(10)), 0);
    EXPECT_FALSE(fs::exists(t.freezer)) << "the freezer group outlived its host";
    EXPECT_FALSE(fs::exists(t.keeper_socket));
}

TEST(LocalLifetime, IdleStopEndsTheHostAndLeavesNothing) {
    auto s = kept_local([](Config &c) {
        c.set("sandbox.idle_timeout", 2);
        c.set("sandbox.idle_action", "stop");
    });
    StopAtEnd stop_at_end{*s};
    const Traces t = traces_of(s->state->path(), s->runtime->session_id());
    s->runtime->close();
    ASSERT_GE(wait_gone(t, std::chrono::seconds(15)), 0);
    expect_nothing_left(t);
}

// A host that is not kept ends with its client's close, and its keeper with it.
TEST(LocalLifetime, ClosingAHostThatIsNotKeptEndsItsKeeper) {
    auto s = start_runtime("local", [](Config &c) { c.set("sandbox.lifetime", 600); });
    const std::string keeper_record = s->state->path() + "/local-" + s->runtime->session_id() + ".keeper.json";
    const pid_t keeper = read_json(keeper_record).value("pid", -1);
    ASSERT_TRUE(process_exists(keeper));
    EXPECT_GT(s->runtime->lifetime().value("time_left_s", 0.0), 590.0);
    s->runtime->close();
    for (int i = 0; i < 100 && process_exists(keeper); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(process_exists(keeper));
    EXPECT_FALSE(fs::exists(keeper_record));
    EXPECT_FALSE(fs::exists(s->state->path() + "/local-" + s->runtime->session_id() + ".keeper.sock"));
}

TEST(LocalLifetime, AHostWithoutALifetimeHasNoKeeperAndCannotBeExtended) {
    auto s = start_runtime("local");
    EXPECT_FALSE(fs::exists(s->state->path() + "/local-" + s->runtime->session_id() + ".keeper.json"));
    EXPECT_TRUE(s->runtime->lifetime()["time_left_s"].is_null());
    try {
        s->runtime->extend(60);
        FAIL() << "extended";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("no lifetime"), std::string::npos) << e.what();
    }
}

TEST(LocalLifetime, BadValuesAreRefusedBeforeAnythingStarts) {
    auto refused = [](const std::function<void(Config &)> &keys, const std::string &words) {
        actionhost::testing::TempDir ws("ahrt-ws"), state("ahrt-state");
        auto o = test_runtime_options("local", ws.path(), state.path());
        keys(o.config);
        std::vector<std::string> statuses;
        o.on_status = [&statuses](const std::string &st, const std::string &detail) { statuses.push_back(st + " " + detail); };
        try {
            auto rt = Runtime::create(std::move(o));
            rt->connect();
            ADD_FAILURE() << "started";
        } catch (const std::exception &e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
        for (const auto &st : statuses) EXPECT_EQ(st.find("starting"), std::string::npos) << st;
        EXPECT_TRUE(fs::is_empty(state.path())) << "something was made for a refused start";
    };
    refused([](Config &c) { c.set("sandbox.lifetime", -5); }, "sandbox.lifetime must be a whole number");
    refused([](Config &c) { c.set("sandbox.lifetime", 999'999'999'999LL); }, "at most");
    refused([](Config &c) { c.set("sandbox.idle_timeout", 5), c.set("sandbox.idle_action", "sleep"); }, "\"pause\" or \"stop\"");
    refused([](Config &c) { c.set("sandbox.idle_action", "stop"); }, "idle_timeout is not");
}

// Runtime::pause() (a SIGSTOP of the host's process group) is the caller's: a connection to the host
// meanwhile does not make the keeper resume it, and its idle clock stands still.
TEST(LocalLifetime, AHostSomeoneElsePausedIsLeftToThem) {
    auto s = start_runtime("local", [](Config &c) {
        c.set("sandbox.idle_timeout", 1);
        c.set("sandbox.idle_action", "pause");
    });
    const Traces t = traces_of_running(*s);
    s->runtime->pause();
    for (int i = 0; i < 50 && state_of(t.host) != 'T'; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(state_of(t.host), 'T');
    const int port = std::stoi(s->runtime->url().substr(s->runtime->url().rfind(':') + 1));
    const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);  // waits in the host's queue
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    EXPECT_EQ(state_of(t.host), 'T') << "the keeper resumed a host someone else paused";
    EXPECT_FALSE(s->runtime->lifetime().value("paused", true));  // not paused by the idle timeout
    ::close(client);
    s->runtime->resume();
    EXPECT_EQ(exit_code(run(*s->runtime, "true")), 0);
}
