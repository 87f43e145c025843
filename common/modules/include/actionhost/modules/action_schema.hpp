// What an action's provider declares about it (a plugin in its manifest's "provides.actions", the host
// for its own file actions): the arguments with their types, defaults and whether they are required,
// and when the provider takes the action. The host validates every action against the declaration of
// the provider it routes to, before the provider sees it — so a third party's action gets the same
// checks and the same 500 texts as OpenHands' own, and adding an argument needs no change to the host.
//
// In a manifest:
//   "provides": {"actions": {
//     "greet": {"description": "...",
//               "args": {"name": {"type": "string", "required": true},
//                        "loud": {"type": "boolean", "default": false},
//                        "cwd":  {"type": ["string", "null"], "default": null}}},
//     "read":  {"when": {"impl_source": "oh_aci"}, "args": {...}}}}
// "type" is one JSON type name or a list of them ("string", "boolean", "integer", "number", "array",
// "object", "null"); absent means any value; "deprecated": true accepts an argument OpenHands' wire
// no longer uses and drops it. "when" routes the action here only when the request's
// arguments hold those values (a declaration with "when" wins over one without). "interrupt_when"
// (e.g. {"is_input": true, "command": "C-c"}) marks the calls that may reach the provider while another
// action of the same session still runs — the one exception to one-action-at-a-time, so a client can stop
// a command whose own request still waits; the provider must handle such a call beside the running one.
// A declaration without
// "args", or the form "actions": ["greet"], leaves the arguments unchecked for the plugin.
#pragma once

#include <actionhost/common/result.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::modules {

struct ArgSpec {
    std::string name;
    std::vector<std::string> types;  // JSON type names accepted; empty = any value
    bool required = false;
    // Filled in when the argument is absent; discarded (is_discarded()) when none is declared: then an
    // absent argument stays absent.
    nlohmann::json default_value = nlohmann::json(nlohmann::json::value_t::discarded);
    std::string description;
    bool deprecated = false;  // accepted and dropped before the provider sees the action
};

struct ActionSpec {
    std::string name;
    std::string description;
    bool checked = true;            // false: declared by name only; arguments pass through unchecked
    std::vector<ArgSpec> args;
    nlohmann::json when = nlohmann::json::object();  // {"arg": value, ...} the raw arguments must hold
    nlohmann::json interrupt_when = nlohmann::json::object();  // {"arg": value, ...}; empty: never

    // Whether the raw (unnormalised) arguments hold every value of `when`.
    bool matches(const nlohmann::json &raw_args) const;
    // Whether validated arguments make this call an interrupt (see "interrupt_when").
    bool interrupts(const nlohmann::json &args) const;
    // Checks `args` against the declaration: unknown, missing or mistyped arguments are refused with
    // the text OpenHands' clients know; defaults are filled in; "true"/"false" strings become booleans
    // and whole numbers integers, as OpenHands' LLM tool mapping sends them. `shared` are arguments
    // every action accepts (the event model's base fields). Fails with why the action is refused.
    common::Status validate(nlohmann::json &args, const std::vector<ArgSpec> &shared) const;
    // The declaration as a JSON Schema object (for an API description).
    nlohmann::json json_schema() const;
};

// Parses a manifest's "provides.actions" (either form), keeping the declaration order of arguments (it
// is the order of the checks). A refusal says what is wrong, naming the field.
common::Result<std::vector<ActionSpec>> parse_action_specs(const nlohmann::ordered_json &actions);

}  // namespace actionhost::modules
