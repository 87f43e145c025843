#include "sandbox_lifetime.hpp"

#include <stdexcept>
#include <string>

namespace daytona {

using actionhost::runtime_support::KeptLifetime;
using actionhost::runtime_support::LifetimeRequest;
using nlohmann::json;

json auto_intervals(const LifetimeRequest &request, bool auto_stop_disabled) {
    if (request.lifetime_s > 0)
        throw std::runtime_error("Daytona keeps no lifetime (its sandboxes end only when stopped or deleted): leave sandbox.lifetime "
                                 "unset; sandbox.idle_timeout maps to its autoStopInterval");
    if (request.idle_timeout_s == 0) return {{"autoStopInterval", auto_stop_disabled ? 0 : kOpenHandsAutoStopMinutes}};
    if (auto_stop_disabled)
        throw std::runtime_error("DAYTONA_DISABLE_AUTO_STOP=true turns off the auto-stop that sandbox.idle_timeout asks for: unset one of them");
    if (request.idle_timeout_s % 60 != 0)
        throw std::runtime_error("Daytona counts idle time in whole minutes (autoStopInterval): sandbox.idle_timeout must be a multiple "
                                 "of 60 seconds, not " + std::to_string(request.idle_timeout_s));
    json fields = {{"autoStopInterval", request.idle_timeout_s / 60}};
    if (request.idle_action == "stop") fields["autoDeleteInterval"] = 0;  // deleted as soon as the auto-stop stops it
    return fields;
}

KeptLifetime kept_lifetime(const json &sandbox) {
    KeptLifetime k;
    const std::string state = sandbox.value("state", "");
    k.paused = state == "stopping" || state == "stopped" || state == "archiving" || state == "archived";
    const json stop = sandbox.value("autoStopInterval", json());
    if (stop.is_number_integer() && stop.get<long>() > 0) {
        k.idle_timeout_s = stop.get<long>() * 60;
        const json del = sandbox.value("autoDeleteInterval", json());
        k.idle_action = del.is_number_integer() && del.get<long>() == 0 ? "stop" : "pause";
    }
    return k;
}

}  // namespace daytona
