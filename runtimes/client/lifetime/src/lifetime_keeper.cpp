#include "actionhost/lifetime/lifetime_keeper.hpp"

#include <cstdio>
#include <stdexcept>

#include "actionhost/lifetime/lifetime_plan.hpp"

namespace actionhost::lifetime {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Connections are counted once a second while the sandbox runs; settings.paused_tick while it is
// paused, so a caller with no wake descriptor (a published port, a TCP client) waits at most that.
constexpr auto kRunningTick = std::chrono::seconds(1);

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

json no_lifetime_state() {
    return json{{"lifetime_s", nullptr}, {"time_left_s", nullptr}, {"expires_at", nullptr}, {"idle_timeout_s", nullptr},
                {"idle_action", nullptr}, {"idle_s", nullptr}, {"paused", false}};
}

LifetimeKeeper::LifetimeKeeper(asio::io_context &io, LifetimeSettings settings, SandboxControls controls)
    : s_(std::move(settings)), c_(std::move(controls)), deadline_timer_(io), tick_timer_(io), wake_(io), last_activity_(Clock::now()) {
    if (s_.wake_fd >= 0) wake_.assign(s_.wake_fd);  // ours now: closed with it
    if (s_.lifetime_s > 0) {
        has_deadline_ = true;
        deadline_ = Clock::now() + std::chrono::seconds(s_.lifetime_s);
        arm_deadline();
    }
    if (s_.idle_timeout_s > 0) tick();
}

LifetimeKeeper::~LifetimeKeeper() = default;

void LifetimeKeeper::arm_deadline() {
    deadline_timer_.expires_at(deadline_);  // a wait already pending ends with operation_aborted
    deadline_timer_.async_wait([this](const boost::system::error_code &ec) {
        if (!ec) end("lifetime");
    });
}

void LifetimeKeeper::tick() {
    tick_timer_.expires_after(paused_by_us_ ? std::chrono::duration_cast<Clock::duration>(s_.paused_tick)
                                            : std::chrono::duration_cast<Clock::duration>(kRunningTick));
    tick_timer_.async_wait([this](const boost::system::error_code &ec) {
        if (ec || stopped_) return;
        look();
        tick();
    });
}

void LifetimeKeeper::look() {
    const auto now = Clock::now();
    if (paused_by_us_ && !c_.frozen()) {  // thawed by someone else (Runtime::resume): running again
        paused_by_us_ = false;
        last_activity_ = now;
        stop_waiting();
        // A partial thaw (a SIGCONT to the host's process group alone) leaves the rest of what this
        // keeper paused stopped: finished here. Thawing what runs already changes nothing.
        c_.thaw();
    }
    if (c_.connections() > 0) {
        last_activity_ = now;
        if (paused_by_us_) resume("a connection");
        return;
    }
    if (paused_by_us_ || now - last_activity_ < std::chrono::seconds(s_.idle_timeout_s)) return;
    if (s_.idle_action == "stop") return end("idle");
    if (c_.frozen()) {  // paused by someone else: theirs to resume, and not idle time of ours
        last_activity_ = now;
        return;
    }
    if (!c_.freeze()) {
        std::fprintf(stderr, "%s: warning: the sandbox is idle but cannot be paused\n", s_.log_name.c_str());
        last_activity_ = now;  // said once per idle period, not every second
        return;
    }
    paused_by_us_ = true;
    // A client that connected while the sandbox was being frozen: its connection is already listed.
    if (c_.connections() > 0) return resume("a connection");
    wait_for_caller();
}

// While frozen, the sandbox accepts nothing: the wake listener readable means a request is waiting.
void LifetimeKeeper::wait_for_caller() {
    if (!wake_.is_open()) return;
    wake_.async_wait(asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code &ec) {
        if (!ec && paused_by_us_) resume("a request");
    });
}

// Not open (no idle pause, or no wake descriptor) is no error: nothing waits then.
void LifetimeKeeper::stop_waiting() {
    boost::system::error_code ignored;
    if (wake_.is_open()) wake_.cancel(ignored);
}

void LifetimeKeeper::resume(const char *why) {
    (void)why;
    if (!c_.thaw()) std::fprintf(stderr, "%s: warning: the paused sandbox could not be thawed\n", s_.log_name.c_str());
    paused_by_us_ = false;
    last_activity_ = Clock::now();
    stop_waiting();
}

void LifetimeKeeper::give_back() {
    stopped_ = true;
    deadline_timer_.cancel();
    tick_timer_.cancel();
    stop_waiting();
    if (paused_by_us_) {
        paused_by_us_ = false;
        c_.thaw();
    }
}

void LifetimeKeeper::end(const std::string &why) {
    if (!ended_because_.empty()) return;
    ended_because_ = why;
    stopped_ = true;
    deadline_timer_.cancel();
    tick_timer_.cancel();
    stop_waiting();
    std::fprintf(stderr, "%s: the sandbox ends: %s\n", s_.log_name.c_str(),
                 why == "lifetime" ? "its lifetime is over" : "it was idle for its idle_timeout (idle_action = \"stop\")");
    c_.end(why);
}

json LifetimeKeeper::state() const {
    const auto now = Clock::now();
    json out = no_lifetime_state();
    out["paused"] = paused_by_us_;
    if (has_deadline_) {
        const double left = std::max(0.0, seconds(deadline_ - now));
        const double epoch = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        out["lifetime_s"] = s_.lifetime_s;
        out["time_left_s"] = left;
        out["expires_at"] = epoch + left;
    }
    if (s_.idle_timeout_s > 0) {
        out["idle_timeout_s"] = s_.idle_timeout_s;
        out["idle_action"] = s_.idle_action;
        out["idle_s"] = seconds(now - last_activity_);
    }
    return out;
}

json LifetimeKeeper::extend(long long by) {
    if (!has_deadline_) throw std::invalid_argument("this sandbox has no lifetime to extend (sandbox.lifetime was not set at its start)");
    if (by < 1 || by > kMaxLifetimeSeconds)
        throw std::invalid_argument("the extension must be 1.." + std::to_string(kMaxLifetimeSeconds) + " seconds, not " + std::to_string(by));
    const auto next = deadline_ + std::chrono::seconds(by);
    if (next - Clock::now() > std::chrono::seconds(kMaxLifetimeSeconds))
        throw std::invalid_argument("the sandbox would then live more than " + std::to_string(kMaxLifetimeSeconds) + " seconds from now");
    deadline_ = next;
    arm_deadline();
    return state();
}

}  // namespace actionhost::lifetime
