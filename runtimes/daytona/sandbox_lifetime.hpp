// `[sandbox] idle_timeout` and `idle_action` as a Daytona sandbox's auto intervals, and back. Daytona
// counts in whole minutes and keeps no lifetime: `autoStopInterval` stops a sandbox after that many
// minutes without activity (requests through its preview URLs, toolbox calls; 0 = never), and
// `autoDeleteInterval` = 0 deletes one as soon as it stops. A stopped sandbox keeps its files and is
// started again by POST /sandbox/{id}/start — its processes are not kept, so the host is started anew.
#pragma once

#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <nlohmann/json.hpp>

namespace daytona {

// OpenHands' autoStopInterval when no idle timeout is asked (DaytonaRuntime: 60 minutes, 0 with
// DAYTONA_DISABLE_AUTO_STOP=true).
inline constexpr long kOpenHandsAutoStopMinutes = 60;

// The create body's interval fields for `request`: autoStopInterval (idle_timeout / 60), and
// autoDeleteInterval 0 for idle_action "stop". `auto_stop_disabled`: DAYTONA_DISABLE_AUTO_STOP=true.
// Throws std::runtime_error for a lifetime (Daytona keeps none), an idle timeout that is not a whole
// number of minutes (refused, not rounded: what runs is what was written) and one with the auto-stop
// disabled.
nlohmann::json auto_intervals(const actionhost::runtime_support::LifetimeRequest &request, bool auto_stop_disabled);

// What Daytona keeps for `sandbox` (its DTO): the auto-stop as an idle timeout ("stop" when the
// sandbox is deleted on stopping, else "pause"); paused while it is stopping, stopped or archived.
actionhost::runtime_support::KeptLifetime kept_lifetime(const nlohmann::json &sandbox);

}  // namespace daytona
