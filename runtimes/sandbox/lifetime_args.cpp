#include "lifetime_args.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "init/options.hpp"

namespace actionhost::sandbox_runtime {

namespace {

// Seconds: a whole number 0..ten years ("" and "0": none). A fraction or a unit is refused rather than
// rounded, so that what runs is what was written.
long seconds_of(const std::optional<std::string> &text, const char *key) {
    if (!text || text->empty() || *text == "null") return 0;
    const std::string &t = *text;
    const bool digits = t.size() <= 12 && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!digits) throw std::runtime_error(std::string("sandbox.") + key + " must be a whole number of seconds (0: none), not '" + t + "'");
    const long long n = std::stoll(t);
    if (n > sandbox::kMaxLifetimeSeconds)
        throw std::runtime_error(std::string("sandbox.") + key + " must be at most " + std::to_string(sandbox::kMaxLifetimeSeconds) +
                                 " seconds (ten years), not " + t + "; leave it unset for none");
    return static_cast<long>(n);
}

std::string unquoted(const std::string &v) { return v.size() >= 2 && v.front() == '"' && v.back() == '"' ? v.substr(1, v.size() - 2) : v; }

}  // namespace

std::vector<std::string> lifetime_args(const LifetimeConfig &config) {
    const long lifetime = seconds_of(config.lifetime, "lifetime");
    const long idle = seconds_of(config.idle_timeout, "idle_timeout");
    const std::string action = config.idle_action && *config.idle_action != "null" ? unquoted(*config.idle_action) : "pause";
    if (action != "pause" && action != "stop")
        throw std::runtime_error("sandbox.idle_action must be \"pause\" or \"stop\", not '" + action + "'");
    if (config.idle_action && idle == 0)
        throw std::runtime_error("sandbox.idle_action is set but sandbox.idle_timeout is not: say after how many idle seconds");
    if (idle > 0 && config.host_network)
        throw std::runtime_error("sandbox.idle_timeout needs the sandbox's own network (network = \"none\" or \"internet\"): with \"host\" "
                                 "its requests do not pass through ah-sandbox-init, which could not see them");
    std::vector<std::string> args;
    if (lifetime > 0) args.insert(args.end(), {"--lifetime", std::to_string(lifetime)});
    if (idle > 0) args.insert(args.end(), {"--idle-timeout", std::to_string(idle), "--idle-action", action});
    return args;
}

}  // namespace actionhost::sandbox_runtime
