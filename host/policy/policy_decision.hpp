// One policy decision about one action: what a policy module (or the built-in rules) answered, in the
// shape the audit trail records (docs/security.md, "Policy").
#pragma once

#include <actionhost/ext/policy.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace actionhost::host {

enum class PolicyVerdict { Allow = AH_POLICY_ALLOW, Deny = AH_POLICY_DENY, Confirm = AH_POLICY_CONFIRM };
// OpenHands' ActionSecurityRisk values, ordered: a higher risk is a larger number.
enum class Risk { Unknown = AH_RISK_UNKNOWN, Low = AH_RISK_LOW, Medium = AH_RISK_MEDIUM, High = AH_RISK_HIGH };

struct PolicyDecision {
    std::string action;   // the action's type, e.g. "run"
    std::string session;  // "" is the default session
    std::string module;   // "rules" (built in), a policy module's name, or "host" (the stage itself)
    std::string rule;     // what matched, e.g. "deny_commands[0]"; "" when nothing did
    PolicyVerdict verdict = PolicyVerdict::Allow;
    Risk risk = Risk::Unknown;
    std::string reason;
    // After a confirmation wait: "confirmed", "rejected" or "timed_out"; "" when none was asked.
    std::string confirmation;
};

const char *to_string(PolicyVerdict v);
const char *to_string(Risk r);  // "UNKNOWN", "LOW", "MEDIUM", "HIGH"
// "LOW", "MEDIUM", "HIGH" (any case); nullopt otherwise.
std::optional<Risk> parse_risk(const std::string &text);
// {"action","session","module","rule","decision","risk","reason"[,"confirmation"]}: the record the
// audit trail takes, and the host log's line.
nlohmann::json to_json(const PolicyDecision &d);

}  // namespace actionhost::host
