// A runtime's lifetime and idleness, kept by a process outside the sandbox that outlives the client:
// ah-sandbox-init for the `sandbox` runtime (runtimes/sandbox/init/main.cpp), ah-local-keeper and
// ah-docker-keeper for `local` and `docker` (keeper_program.hpp). The timers live in that process and
// are changed only through its control socket (ops "lifetime" and "extend": lifetime_requests.hpp),
// which the sandbox cannot reach — so they hold with no client running (a kept-alive sandbox) and
// nothing the agent does inside can extend or stop them.
//
//   - lifetime: at the deadline the sandbox ends as `ahctl stop` ends it (controls.end), and its keeper
//     removes what it leaves (run directory, records). `extend` moves the deadline later.
//   - idle: once every second the connections to the sandbox are counted (controls.connections: the
//     sandbox's unix sockets in /proc/net/unix, the host's TCP port in /proc/net/tcp). After
//     idle_timeout seconds without one, "stop" ends the sandbox as the lifetime does; "pause" freezes it
//     (controls.freeze), and the next connection — a pending one on the wake descriptor at once, any
//     other within the paused tick — thaws it, which is how a paused sandbox resumes by itself on the
//     next request (OpenHands' remote runtime resumes on a 503 the same way). A connection held open (a
//     client mid-request) counts as activity, so a long command is never paused under its client.
// A sandbox someone else froze (Runtime::pause, a snapshot) is left to them: it is never thawed here.
// Runs on its process's event loop (one thread); Boost.Asio timers, no loop of its own.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::lifetime {

struct LifetimeSettings {
    long lifetime_s = 0;      // 0: none
    long idle_timeout_s = 0;  // 0: none
    std::string idle_action = "pause";
    // A copy of a listener whose readability means a caller waits while the sandbox is paused (the
    // sandbox's API socket: pid 1 frozen accepts nothing), or -1. Taken: closed here.
    int wake_fd = -1;
    // How often connections are counted while the sandbox is paused: a caller with no wake descriptor
    // waits at most this long.
    std::chrono::milliseconds paused_tick{100};
    std::string log_name = "ah-lifetime-keeper";  // its lines on stderr start with it
};

// What the keeper does to the sandbox. freeze/thaw return false when they cannot (no freezer);
// frozen() tells whether the sandbox is frozen now, by anyone; connections() how many are open to it.
struct SandboxControls {
    std::function<void(const std::string &why)> end;
    std::function<bool()> freeze, thaw, frozen;
    std::function<size_t()> connections;
};

class LifetimeKeeper {
  public:
    LifetimeKeeper(boost::asio::io_context &io, LifetimeSettings settings, SandboxControls controls);
    ~LifetimeKeeper();

    // {"lifetime_s", "time_left_s", "expires_at" (Unix seconds), "idle_timeout_s", "idle_action",
    //  "idle_s", "paused"}: the lifetime's fields null when there is none, the idle ones when idle is off.
    nlohmann::json state() const;
    // Moves the deadline `seconds` (1..kMaxLifetimeSeconds) later; returns state(). Throws
    // std::invalid_argument for a sandbox without a lifetime or seconds out of range.
    nlohmann::json extend(long long seconds);
    // Why the sandbox ended by this keeper ("" when it did not): its process then removes its leftovers.
    const std::string &ended_because() const { return ended_because_; }
    // The keeper stops without ending the sandbox (its process was told to go, or the sandbox went by
    // other means): one it paused is thawed, so whoever ends it next is not kept waiting by a freezer.
    void give_back();

  private:
    using Clock = std::chrono::steady_clock;
    void arm_deadline();
    void tick();
    void look();
    void wait_for_caller();
    void resume(const char *why);
    void stop_waiting();
    void end(const std::string &why);

    LifetimeSettings s_;
    SandboxControls c_;
    boost::asio::steady_timer deadline_timer_, tick_timer_;
    boost::asio::posix::stream_descriptor wake_;
    Clock::time_point deadline_{}, last_activity_;
    bool has_deadline_ = false, paused_by_us_ = false, stopped_ = false;
    std::string ended_because_;
};

// The state of a runtime that keeps no lifetime now: every field null, not paused.
nlohmann::json no_lifetime_state();

}  // namespace actionhost::lifetime
