#include "sandbox_timeouts.hpp"

#include <cmath>
#include <stdexcept>

namespace modal {

SandboxTimeouts sandbox_timeouts(const actionhost::runtime_support::LifetimeRequest &request, const std::optional<std::string> &modal_timeout) {
    SandboxTimeouts t;
    long long timeout = kOpenHandsTimeoutSecs;
    if (request.lifetime_s > 0 && modal_timeout)
        throw std::runtime_error("sandbox.lifetime and modal.timeout both set the Modal sandbox's timeout: set one of them");
    if (request.lifetime_s > 0) {
        timeout = request.lifetime_s;
    } else if (modal_timeout) {
        double v = -1;
        try {
            v = std::stod(*modal_timeout);
        } catch (...) {
        }
        if (v < 1 || v != std::floor(v))
            throw std::runtime_error("modal.timeout must be a whole number of seconds, not '" + *modal_timeout + "'");
        timeout = static_cast<long long>(v);
    }
    if (timeout > kMaxTimeoutSecs)
        throw std::runtime_error("Modal sandboxes run at most 24 hours (" + std::to_string(kMaxTimeoutSecs) + " s), not " +
                                 std::to_string(timeout) + " s (sandbox.lifetime / modal.timeout)");
    t.timeout_secs = static_cast<uint32_t>(timeout);
    if (request.idle_timeout_s > 0) {
        if (request.idle_action != "stop")
            throw std::runtime_error("Modal cannot pause an idle sandbox (its idle_timeout terminates it): set sandbox.idle_action = \"stop\"");
        t.idle_timeout_secs = static_cast<uint32_t>(request.idle_timeout_s);
    }
    return t;
}

}  // namespace modal
