#include "devbox_lifetime.hpp"

#include <stdexcept>
#include <string>

namespace runloop {

using actionhost::runtime_support::KeptLifetime;
using actionhost::runtime_support::LifetimeRequest;
using nlohmann::json;

json launch_lifetime(const LifetimeRequest &request) {
    if (request.lifetime_s > 0 && request.idle_timeout_s > 0)
        throw std::runtime_error("Runloop keeps a devbox's lifetime or its idle policy, not both (with after_idle set it ignores "
                                 "keep_alive_time_seconds): set sandbox.lifetime or sandbox.idle_timeout");
    json fields = json::object();
    if (request.lifetime_s > 0) fields["keep_alive_time_seconds"] = request.lifetime_s;
    if (request.idle_timeout_s > 0)
        fields["after_idle"] = {{"idle_time_seconds", request.idle_timeout_s},
                                {"on_idle", request.idle_action == "stop" ? "shutdown" : "suspend"}};
    return fields;
}

KeptLifetime kept_lifetime(const json &devbox) {
    KeptLifetime k;
    const json launch = devbox.contains("launch_parameters") && devbox["launch_parameters"].is_object() ? devbox["launch_parameters"] : json::object();
    k.started_at = devbox.value("create_time_ms", 0.0) / 1000.0;
    const std::string status = devbox.value("status", "");
    k.paused = status == "suspending" || status == "suspended" || status == "resuming";
    if (launch.contains("after_idle") && launch["after_idle"].is_object()) {
        const json &idle = launch["after_idle"];
        k.idle_timeout_s = idle.value("idle_time_seconds", 0L);
        k.idle_action = idle.value("on_idle", "") == "shutdown" ? "stop" : "pause";
        return k;
    }
    const json keep = launch.value("keep_alive_time_seconds", json());
    k.lifetime_s = keep.is_number() ? keep.get<double>() : static_cast<double>(kDefaultKeepAliveSeconds);
    return k;
}

}  // namespace runloop
