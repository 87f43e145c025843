#include "actionhost/runtime_support/cloud_lifetime.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

// The sandbox runtime's checks, compiled in here (runtimes/client/CMakeLists.txt) rather than copied:
// one set of rules and sentences for every backend that honours the keys.
#include "lifetime_args.hpp"

namespace actionhost::runtime_support {

LifetimeRequest lifetime_request(const std::optional<std::string> &lifetime, const std::optional<std::string> &idle_timeout,
                                 const std::optional<std::string> &idle_action) {
    // lifetime_args answers ah-sandbox-init's options ("--lifetime", "N", ...); read back, they are the
    // checked values. host_network is the sandbox runtime's own concern: a provider sees every request.
    const std::vector<std::string> args = sandbox_runtime::lifetime_args({lifetime, idle_timeout, idle_action, false});
    LifetimeRequest r;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
        if (args[i] == "--lifetime") r.lifetime_s = std::stol(args[i + 1]);
        else if (args[i] == "--idle-timeout") r.idle_timeout_s = std::stol(args[i + 1]);
        else if (args[i] == "--idle-action") r.idle_action = args[i + 1];
    }
    return r;
}

LifetimeRequest lifetime_request(const std::function<std::optional<std::string>(const std::string &key)> &config) {
    return lifetime_request(config("sandbox.lifetime"), config("sandbox.idle_timeout"), config("sandbox.idle_action"));
}

nlohmann::json kept_lifetime_json(const KeptLifetime &k, double now) {
    nlohmann::json j = {{"lifetime_s", nullptr}, {"time_left_s", nullptr}, {"expires_at", nullptr}, {"idle_timeout_s", nullptr},
                        {"idle_action", nullptr}, {"idle_s", nullptr},    {"paused", k.paused}};
    if (k.lifetime_s) {
        const double expires = k.started_at + *k.lifetime_s;
        j["lifetime_s"] = static_cast<long long>(*k.lifetime_s);
        j["time_left_s"] = std::max(0.0, expires - now);
        j["expires_at"] = static_cast<long long>(expires);
    }
    if (k.idle_timeout_s) {
        j["idle_timeout_s"] = *k.idle_timeout_s;
        j["idle_action"] = k.idle_action;
        if (k.idle_s) j["idle_s"] = *k.idle_s;
    }
    return j;
}

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace actionhost::runtime_support
