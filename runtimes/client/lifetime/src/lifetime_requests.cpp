#include "actionhost/lifetime/lifetime_requests.hpp"

#include <stdexcept>
#include <string>

namespace actionhost::lifetime {

using nlohmann::json;

std::optional<json> answer_lifetime_request(LifetimeKeeper *keeper, const json &request) {
    const std::string op = request.contains("op") && request["op"].is_string() ? request["op"].get<std::string>() : "";
    json out;
    if (op == "lifetime") {
        out = keeper != nullptr ? keeper->state() : no_lifetime_state();
    } else if (op == "extend") {
        if (!request.contains("seconds") || !request["seconds"].is_number_integer())
            throw std::invalid_argument("extend needs \"seconds\", a whole number");
        if (keeper == nullptr) throw std::invalid_argument("this sandbox has no lifetime to extend (sandbox.lifetime was not set at its start)");
        out = keeper->extend(request["seconds"].get<long long>());
    } else {
        return std::nullopt;
    }
    out["ok"] = true;
    return out;
}

}  // namespace actionhost::lifetime
