#include "actionhost/lifetime/lifetime_plan.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace actionhost::lifetime {

namespace {

// Seconds: a whole number 0..ten years ("" and "0": none). A fraction or a unit is refused rather than
// rounded, so that what runs is what was written.
long seconds_of(const std::optional<std::string> &text, const char *key) {
    if (!text || text->empty() || *text == "null") return 0;
    const std::string &t = *text;
    const bool digits = t.size() <= 12 && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!digits) throw std::runtime_error(std::string("sandbox.") + key + " must be a whole number of seconds (0: none), not '" + t + "'");
    const long long n = std::stoll(t);
    if (n > kMaxLifetimeSeconds)
        throw std::runtime_error(std::string("sandbox.") + key + " must be at most " + std::to_string(kMaxLifetimeSeconds) +
                                 " seconds (ten years), not " + t + "; leave it unset for none");
    return static_cast<long>(n);
}

std::string unquoted(const std::string &v) { return v.size() >= 2 && v.front() == '"' && v.back() == '"' ? v.substr(1, v.size() - 2) : v; }

}  // namespace

std::vector<std::string> LifetimePlan::args() const {
    std::vector<std::string> out;
    if (lifetime_s > 0) out.insert(out.end(), {"--lifetime", std::to_string(lifetime_s)});
    if (idle_timeout_s > 0) out.insert(out.end(), {"--idle-timeout", std::to_string(idle_timeout_s), "--idle-action", idle_action});
    return out;
}

LifetimePlan plan_lifetime(const LifetimeKeys &keys) {
    LifetimePlan plan;
    plan.lifetime_s = seconds_of(keys.lifetime, "lifetime");
    plan.idle_timeout_s = seconds_of(keys.idle_timeout, "idle_timeout");
    plan.idle_action = keys.idle_action && *keys.idle_action != "null" ? unquoted(*keys.idle_action) : "pause";
    if (plan.idle_action != "pause" && plan.idle_action != "stop")
        throw std::runtime_error("sandbox.idle_action must be \"pause\" or \"stop\", not '" + plan.idle_action + "'");
    if (keys.idle_action && plan.idle_timeout_s == 0)
        throw std::runtime_error("sandbox.idle_action is set but sandbox.idle_timeout is not: say after how many idle seconds");
    return plan;
}

}  // namespace actionhost::lifetime
