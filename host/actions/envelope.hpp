// The OpenHands action envelope (spec §2.1): parsing, the normalisation rules, argument defaults.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace actionhost::host {

struct Envelope {
    std::string action;          // "run", "edit", ...
    nlohmann::json args;         // every argument, defaults filled for the known actions
    std::optional<double> timeout;  // hard timeout in seconds, when set
    nlohmann::json normalised() const;  // {"action","args"[,"timeout"]} as handed to plugins
};

struct EnvelopeResult {
    std::optional<Envelope> envelope;
    std::string error;  // why the action is malformed
};

// True for the action types of OpenHands' event model (spec §2.2) that carry an argument schema.
bool is_core_action(const std::string &action);

// Normalises `action` (the value of the request's "action" key, already known to be an object).
// `extra_actions` are types provided by loaded or installed plugins beyond the core ones: their args
// pass through unchecked for the plugin to validate.
EnvelopeResult parse_envelope(const nlohmann::json &action, bool (*is_extra_action)(const std::string &, void *),
                              void *ctx);

}  // namespace actionhost::host
