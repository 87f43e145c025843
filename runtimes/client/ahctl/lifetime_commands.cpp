#include "lifetime_commands.hpp"

#include <actionhost/client/errors.hpp>
#include <actionhost/common/json_io.hpp>
#include <actionhost/common/text.hpp>

#include <cmath>
#include <ctime>
#include <iostream>

namespace ahctl {

namespace {

constexpr long long kMaxExtensionS = 10LL * 366 * 24 * 3600;  // as the sandbox's supervisor bounds it

long long seconds_argument(const std::string &text) {
    try {
        size_t used = 0;
        const long long n = std::stoll(text, &used);
        if (used == text.size() && n > 0 && n <= kMaxExtensionS) return n;
    } catch (...) {
    }
    throw UsageError("extend needs a positive whole number of seconds (at most " + std::to_string(kMaxExtensionS) + "), got: " + text);
}

std::string duration_text(long long s) {
    if (s < 120) return std::to_string(s) + "s";
    if (s < 7200) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
    if (s < 172800) return std::to_string(s / 3600) + "h" + std::to_string(s / 60 % 60) + "m";
    return std::to_string(s / 86400) + "d" + std::to_string(s / 3600 % 24) + "h";
}

}  // namespace

std::string time_left_text(const nlohmann::json &state) {
    if (!state.is_object() || !state.contains("time_left_s") || !state["time_left_s"].is_number()) return "-";
    return duration_text(static_cast<long long>(std::ceil(state["time_left_s"].get<double>())));
}

int cmd_extend(const Options &o, const SessionRuntime &session_runtime) {
    std::vector<std::string> args = o.args;
    if (args.size() == 1 && o.session) args.insert(args.begin(), *o.session);
    if (args.size() != 2) throw UsageError("extend needs SESSION SECONDS (or --session SESSION SECONDS)");
    const std::string &sid = args[0];
    const long long seconds = seconds_argument(args[1]);
    auto rt = session_runtime(sid);
    if (!rt) {
        std::cerr << "[ahctl] no kept-alive runtime with session id " << actionhost::common::printable_name(sid) << "\n";
        return kActionFailed;
    }
    nlohmann::json state;
    try {
        state = rt->extend(seconds);
    } catch (const std::invalid_argument &e) {
        std::cerr << "[ahctl] " << actionhost::common::printable_name(sid) << ": " << e.what() << "\n";
        return kActionFailed;
    }
    if (o.json) {
        state["session_id"] = sid;
        std::cout << actionhost::common::dump_json(state, 2) << "\n";
        return kOk;
    }
    std::string until;
    if (state.contains("expires_at") && state["expires_at"].is_number()) {
        const std::time_t at = static_cast<std::time_t>(state["expires_at"].get<double>());
        char text[64];
        std::tm tm{};
        if (localtime_r(&at, &tm) && std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm) > 0) until = std::string(" (until ") + text + ")";
    }
    std::cout << sid << ": " << time_left_text(state) << " left" << until << "\n";
    return kOk;
}

}  // namespace ahctl
