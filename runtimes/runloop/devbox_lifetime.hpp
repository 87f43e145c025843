// `[sandbox] lifetime`, `idle_timeout` and `idle_action` as a Runloop devbox's launch_parameters, and
// back: what Runloop keeps for a devbox, read from its DevboxView. Runloop documents a devbox's
// `keep_alive_time_seconds` (it shuts down that long after it was created; one hour when unset) and
// `after_idle` {idle_time_seconds, on_idle: "suspend" | "shutdown"}, and ignores the first when the second
// is set — so a devbox has a lifetime or an idle policy, never both.
#pragma once

#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <nlohmann/json.hpp>

namespace runloop {

// Runloop's keep_alive_time_seconds when a devbox's launch_parameters name none.
inline constexpr long kDefaultKeepAliveSeconds = 3600;

// The launch_parameters fields for `request` (an empty object for none). idle_action "pause" is
// on_idle "suspend" (the backend resumes the devbox on the next request), "stop" is "shutdown".
// Throws std::runtime_error for a lifetime with an idle timeout, which Runloop would not both keep.
nlohmann::json launch_lifetime(const actionhost::runtime_support::LifetimeRequest &request);

// What Runloop keeps for `devbox` (a DevboxView): its after_idle policy, else its keep-alive time from
// create_time_ms; paused while it is suspending, suspended or resuming.
actionhost::runtime_support::KeptLifetime kept_lifetime(const nlohmann::json &devbox);

}  // namespace runloop
