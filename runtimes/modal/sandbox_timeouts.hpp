// `[sandbox] lifetime`, `idle_timeout` and `idle_action` as a Modal sandbox's definition fields.
// Modal documents `timeout` (seconds the sandbox may run, at most 24 hours; it then ends with
// GENERIC_STATUS_TIMEOUT) and `idle_timeout` (seconds without activity — no exec, no stdin, no TCP
// connection over its tunnels — after which it is terminated, GENERIC_STATUS_IDLE_TIMEOUT). Modal
// cannot pause a sandbox, and nothing extends a running sandbox's timeout.
#pragma once

#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace modal {

inline constexpr uint32_t kMaxTimeoutSecs = 24 * 3600;   // Modal's longest sandbox timeout
inline constexpr uint32_t kOpenHandsTimeoutSecs = 3600;  // OpenHands' ModalRuntime: timeout=3600

struct SandboxTimeouts {
    uint32_t timeout_secs = kOpenHandsTimeoutSecs;
    std::optional<uint32_t> idle_timeout_secs;
};

// `request`, with [modal] timeout (`modal_timeout`, as the configuration renders it; nullopt: unset)
// as the older spelling of sandbox.lifetime. Throws std::runtime_error for both set, a timeout that is
// not a whole number of seconds in 1..24 h, and idle_action "pause" (Modal would terminate the sandbox).
SandboxTimeouts sandbox_timeouts(const actionhost::runtime_support::LifetimeRequest &request,
                                 const std::optional<std::string> &modal_timeout);

}  // namespace modal
