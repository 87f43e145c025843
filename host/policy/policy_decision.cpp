#include "policy/policy_decision.hpp"

#include <algorithm>
#include <cctype>

namespace actionhost::host {

const char *to_string(PolicyVerdict v) {
    switch (v) {
    case PolicyVerdict::Allow: return "allow";
    case PolicyVerdict::Deny: return "deny";
    case PolicyVerdict::Confirm: return "confirm";
    }
    return "deny";
}

const char *to_string(Risk r) {
    switch (r) {
    case Risk::Low: return "LOW";
    case Risk::Medium: return "MEDIUM";
    case Risk::High: return "HIGH";
    case Risk::Unknown: break;
    }
    return "UNKNOWN";
}

std::optional<Risk> parse_risk(const std::string &text) {
    std::string up = text;
    std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (up == "LOW") return Risk::Low;
    if (up == "MEDIUM") return Risk::Medium;
    if (up == "HIGH") return Risk::High;
    return std::nullopt;
}

nlohmann::json to_json(const PolicyDecision &d) {
    nlohmann::json j = {{"action", d.action}, {"session", d.session}, {"module", d.module},     {"rule", d.rule},
                        {"decision", to_string(d.verdict)}, {"risk", to_string(d.risk)}, {"reason", d.reason}};
    if (!d.confirmation.empty()) j["confirmation"] = d.confirmation;
    return j;
}

}  // namespace actionhost::host
