// The OpenHands action envelope: parsing and the wire's normalisation rules, the same for every action.
// Arguments are checked afterwards against the declaration of the action's provider (action_schema.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include <actionhost/common/result.hpp>
#include <actionhost/modules/action_schema.hpp>

namespace actionhost::host {

struct Envelope {
    std::string action;             // "run", "edit", ...
    nlohmann::json args;            // normalised; defaults filled once validated
    std::optional<double> timeout;  // hard timeout in seconds, when set
    // {"action","args"[,"timeout"]} as handed to plugins; takes the arguments (no copy of the document).
    nlohmann::json normalised() &&;
};

// Parses `action` (the value of the request's "action" key) and applies OpenHands' normalisation rules
// (openhands/events/serialization/action.py): dropped fields, renamed ones, an invalid security_risk.
// The error says why the action is malformed (the text of a 422 body).
// Takes `action` by value: a caller done with it moves it in, and its arguments are moved on, not copied.
common::Result<Envelope> parse_envelope(nlohmann::json action);

// The arguments every action of OpenHands' event model carries (the Action base class): `thought` and
// `security_risk` with their defaults, `image_urls` and `impl_source` accepted on any action.
const std::vector<modules::ArgSpec> &shared_action_args();

// Action types of the event model that the agent's side handles (message, finish, think, ...): valid
// envelopes, but no runtime executes them.
bool is_client_only_action(const std::string &action);

}  // namespace actionhost::host
