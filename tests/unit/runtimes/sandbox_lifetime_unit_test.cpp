// The lifetime keeper (actionhost/lifetime/lifetime_keeper.hpp, as ah-sandbox-init runs it) on an event
// loop of the test's own, with a pretend sandbox (its end, freeze and thaw recorded) and a real unix
// listener standing for the API socket, its connections counted as ah-sandbox-init counts them: the lifetime ends
// it on time, extend moves the end and refuses careless values, idleness pauses it and a connection
// resumes it, a connection held open keeps it awake, idle "stop" ends it, a sandbox someone else froze
// is left alone. Also the connection counting of /proc/net/unix and the configuration's checks.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include <actionhost/lifetime/lifetime_keeper.hpp>
#include <actionhost/lifetime/lifetime_plan.hpp>

#include "lifetime_args.hpp"
#include "socket_activity.hpp"

using namespace sandbox;
using namespace actionhost::lifetime;
using namespace std::chrono_literals;
using actionhost::sandbox_runtime::lifetime_args;

namespace {

struct PretendSandbox {
    std::string ended;
    bool frozen = false, freezer = true;
    int freezes = 0, thaws = 0;
    std::vector<std::string> watched;  // the sockets whose connections are activity
    SandboxControls controls() {
        return {[this](const std::string &why) { ended = why; }, [this] { return freezer && (frozen = true, ++freezes, true); },
                [this] { return frozen = false, ++thaws, true; }, [this] { return frozen; },
                [this] { return open_connections(watched); }};
    }
};

struct Listener {
    std::string path;
    int fd = -1;
    Listener() {
        char dir[] = "/tmp/ah-lifetime-unit-XXXXXX";
        path = std::string(mkdtemp(dir)) + "/api.sock";
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
        EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
        EXPECT_EQ(listen(fd, 8), 0);
    }
    ~Listener() {
        ::close(fd);
        ::unlink(path.c_str());
        ::rmdir(path.substr(0, path.rfind('/')).c_str());
    }
    int connect_one() const {
        const int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
        EXPECT_EQ(::connect(c, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
        return c;
    }
};

LifetimeSettings settings(long lifetime_s, long idle_timeout_s, const std::string &action, int wake_fd) {
    LifetimeSettings s;
    s.lifetime_s = lifetime_s;
    s.idle_timeout_s = idle_timeout_s;
    s.idle_action = action;
    s.wake_fd = wake_fd;
    return s;
}

// Runs the loop for `d` (bounded: the keeper's timers never end it by themselves).
void run_for(boost::asio::io_context &io, std::chrono::milliseconds d) {
    io.restart();
    io.run_for(d);
}

}  // namespace

TEST(SandboxLifetimeKeeper, TheLifetimeEndsTheSandboxOnTimeAndExtendMovesIt) {
    boost::asio::io_context io;
    PretendSandbox box;
    LifetimeKeeper keeper(io, settings(1, 0, "pause", -1), box.controls());
    EXPECT_EQ(keeper.state().value("lifetime_s", 0), 1);
    EXPECT_THROW(keeper.extend(0), std::invalid_argument);
    EXPECT_THROW(keeper.extend(-3), std::invalid_argument);
    EXPECT_THROW(keeper.extend(kMaxLifetimeSeconds + 1), std::invalid_argument);
    EXPECT_GT(keeper.extend(1).value("time_left_s", 0.0), 1.5);
    run_for(io, 1500ms);
    EXPECT_EQ(box.ended, "");  // the first end has passed
    run_for(io, 1000ms);
    EXPECT_EQ(box.ended, "lifetime");
    EXPECT_EQ(keeper.ended_because(), "lifetime");
}

TEST(SandboxLifetimeKeeper, WithoutALifetimeThereIsNothingToExtend) {
    boost::asio::io_context io;
    PretendSandbox box;
    LifetimeKeeper keeper(io, settings(0, 0, "pause", -1), box.controls());
    EXPECT_TRUE(keeper.state()["time_left_s"].is_null());
    EXPECT_THROW(keeper.extend(10), std::invalid_argument);
}

TEST(SandboxLifetimeKeeper, IdlenessPausesAndTheNextConnectionResumes) {
    boost::asio::io_context io;
    PretendSandbox box;
    Listener api;
    box.watched = {api.path};
    LifetimeKeeper keeper(io, settings(0, 1, "pause", dup(api.fd)), box.controls());
    run_for(io, 2500ms);
    ASSERT_TRUE(box.frozen);
    EXPECT_TRUE(keeper.state().value("paused", false));
    const auto t0 = std::chrono::steady_clock::now();
    const int client = api.connect_one();  // waits in the backlog: nobody accepts it
    run_for(io, 50ms);
    EXPECT_FALSE(box.frozen);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 200ms);
    // Held open (a request in flight): never paused meanwhile.
    run_for(io, 2500ms);
    EXPECT_FALSE(box.frozen);
    EXPECT_EQ(box.freezes, 1);
    ::close(client);
    const int accepted = accept(api.fd, nullptr, nullptr);  // the backlog's, gone too
    ::close(accepted);
    run_for(io, 2500ms);
    EXPECT_TRUE(box.frozen);
    EXPECT_EQ(box.ended, "");
}

TEST(SandboxLifetimeKeeper, ASandboxSomeoneElseFrozeIsLeftToThem) {
    boost::asio::io_context io;
    PretendSandbox box;
    box.frozen = true;  // Runtime::pause()
    Listener api;
    box.watched = {api.path};
    LifetimeKeeper keeper(io, settings(0, 1, "pause", dup(api.fd)), box.controls());
    run_for(io, 2500ms);
    const int client = api.connect_one();
    run_for(io, 1500ms);
    EXPECT_TRUE(box.frozen);
    EXPECT_EQ(box.thaws, 0);
    EXPECT_EQ(box.freezes, 0);
    ::close(client);
}

TEST(SandboxLifetimeKeeper, IdleStopEndsTheSandbox) {
    boost::asio::io_context io;
    PretendSandbox box;
    Listener api;
    box.watched = {api.path};
    LifetimeKeeper keeper(io, settings(0, 1, "stop", -1), box.controls());
    run_for(io, 2500ms);
    EXPECT_EQ(box.ended, "idle");
}

TEST(SandboxSocketActivity, CountsConnectionsOfTheWatchedPathsNotListeners) {
    char name[] = "/tmp/ah-net-unix-XXXXXX";
    const int fd = mkstemp(name);
    const std::string text =
        "Num       RefCount Protocol Flags    Type St Inode Path\n"
        "0000000000000001: 00000002 00000000 00010000 0001 01 100 /run/a/api.sock\n"
        "0000000000000002: 00000003 00000000 00000000 0001 03 101 /run/a/api.sock\n"
        "0000000000000003: 00000003 00000000 00000000 0001 02     0 /run/a/api.sock\n"
        "0000000000000004: 00000003 00000000 00000000 0001 03 103 /run/b/api.sock\n"
        "0000000000000005: 00000003 00000000 00000000 0001 03 104\n"
        "0000000000000006: 00000003 00000000 00000000 0001 03 105 /run/a/ports.sock\n";
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
    EXPECT_EQ(open_connections({"/run/a/api.sock"}, name), 2u);
    EXPECT_EQ(open_connections({"/run/a/api.sock", "/run/a/ports.sock"}, name), 3u);
    EXPECT_EQ(open_connections({"/run/c/api.sock"}, name), 0u);
    EXPECT_EQ(open_connections({"/run/a/api.sock"}, "/nonexistent"), 0u);
    ::unlink(name);
}

TEST(SandboxLifetimeArgs, CheckedWithASentence) {
    using Cfg = actionhost::sandbox_runtime::LifetimeConfig;
    EXPECT_TRUE(lifetime_args(Cfg{}).empty());
    EXPECT_EQ(lifetime_args(Cfg{"60", std::nullopt, std::nullopt, false}), (std::vector<std::string>{"--lifetime", "60"}));
    EXPECT_EQ(lifetime_args(Cfg{std::nullopt, "30", "\"stop\"", false}),
              (std::vector<std::string>{"--idle-timeout", "30", "--idle-action", "stop"}));
    EXPECT_EQ(lifetime_args(Cfg{std::nullopt, "30", std::nullopt, false}),
              (std::vector<std::string>{"--idle-timeout", "30", "--idle-action", "pause"}));
    EXPECT_EQ(lifetime_args(Cfg{"60", std::nullopt, std::nullopt, true}), (std::vector<std::string>{"--lifetime", "60"}));
    for (const char *bad : {"-5", "1.5", "abc", "10m", "999999999999"})
        EXPECT_THROW(lifetime_args(Cfg{bad, std::nullopt, std::nullopt, false}), std::runtime_error) << bad;
    EXPECT_THROW(lifetime_args(Cfg{std::nullopt, "30", "sleep", false}), std::runtime_error);
    EXPECT_THROW(lifetime_args(Cfg{std::nullopt, std::nullopt, "stop", false}), std::runtime_error);
    EXPECT_THROW(lifetime_args(Cfg{std::nullopt, "30", std::nullopt, true}), std::runtime_error);
}
