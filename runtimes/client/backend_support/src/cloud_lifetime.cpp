#include "actionhost/runtime_support/cloud_lifetime.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

// The checks every backend that keeps the keys makes (ah_lifetime): one set of rules and sentences.
#include <actionhost/lifetime/lifetime_plan.hpp>

namespace actionhost::runtime_support {

LifetimeRequest lifetime_request(const std::optional<std::string> &lifetime, const std::optional<std::string> &idle_timeout,
                                 const std::optional<std::string> &idle_action) {
    const lifetime::LifetimePlan plan = lifetime::plan_lifetime({lifetime, idle_timeout, idle_action});
    LifetimeRequest r;
    r.lifetime_s = plan.lifetime_s;
    r.idle_timeout_s = plan.idle_timeout_s;
    if (plan.idle_timeout_s > 0) r.idle_action = plan.idle_action;
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
