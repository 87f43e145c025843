// A sandbox's lifetime and idleness, kept by ah-sandbox-init outside the namespaces — so they hold
// with no client running (a kept-alive sandbox) and nothing the agent does inside can extend or stop
// them: the timers live in this process and are changed only through the control socket
// (control_server.hpp, ops "lifetime" and "extend"), which the sandbox cannot reach.
//
//   - lifetime: at the deadline the sandbox ends as `ahctl stop` ends it (end_sandbox), and main.cpp
//     removes what it leaves (run directory, records). `extend` moves the deadline later.
//   - idle: once every second the connections through the sandbox's sockets are counted
//     (socket_activity.hpp). After idle_timeout seconds without one, "stop" ends the sandbox as the
//     lifetime does; "pause" freezes it (the cgroup freezer), and the next connection — a pending one
//     on the API socket wakes this at once, a published port's within the tick — thaws it, which is
//     how a paused sandbox resumes by itself on the next request (OpenHands' remote runtime resumes
//     on a 503 the same way). A connection held open (a client mid-request) counts as activity, so a
//     long command is never paused under its client.
// A sandbox someone else froze (Runtime::pause, a snapshot) is left to them: it is never thawed here.
// Runs on the supervisor's event loop (one thread); Boost.Asio timers, no loop of its own.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sandbox {

struct LifetimeSettings {
    long lifetime_s = 0;      // 0: none
    long idle_timeout_s = 0;  // 0: none
    std::string idle_action = "pause";
    std::vector<std::string> watched_sockets;  // the listening sockets whose connections are activity
    int api_listener_fd = -1;                  // a copy of the API socket's listener, or -1 (taken: closed here)
};

// What the keeper does to the sandbox. freeze/thaw return false when they cannot (no freezer);
// frozen() tells whether the sandbox is frozen now, by anyone.
struct SandboxControls {
    std::function<void(const std::string &why)> end;
    std::function<bool()> freeze, thaw, frozen;
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
    // Why the sandbox ended by this keeper ("" when it did not): main.cpp then removes its leftovers.
    const std::string &ended_because() const { return ended_because_; }

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
    boost::asio::posix::stream_descriptor api_listener_;
    Clock::time_point deadline_{}, last_activity_;
    bool has_deadline_ = false, paused_by_us_ = false;
    std::string ended_because_;
};

}  // namespace sandbox
