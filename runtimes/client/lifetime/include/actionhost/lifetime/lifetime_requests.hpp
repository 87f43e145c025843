// The two control-socket requests about a lifetime, answered alike by every process that keeps one
// (ah-sandbox-init's control server, the local and docker keepers), so that one client side
// (Runtime::lifetime, Runtime::extend, `ahctl extend`, `ahctl ps`) reads them all:
//   {"op": "lifetime"}              → {"ok": true, "lifetime_s", "time_left_s", "expires_at", "idle_timeout_s",
//                                      "idle_action", "idle_s", "paused"}  (nulls: none)
//   {"op": "extend", "seconds": N}  → as "lifetime", the deadline N seconds later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "actionhost/lifetime/lifetime_keeper.hpp"

namespace actionhost::lifetime {

// The answer to `request` when its op is "lifetime" or "extend" (`keeper`: nullptr for a runtime that
// keeps no lifetime), nullopt for any other op. Throws std::invalid_argument for a request refused as
// such (no seconds, nothing to extend, out of range).
std::optional<nlohmann::json> answer_lifetime_request(LifetimeKeeper *keeper, const nlohmann::json &request);

}  // namespace actionhost::lifetime
