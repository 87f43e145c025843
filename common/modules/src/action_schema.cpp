#include "actionhost/modules/action_schema.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <actionhost/common/json_write.hpp>

namespace actionhost::modules {
namespace {

const std::vector<std::string> kTypeNames = {"string", "boolean", "integer", "number", "array", "object", "null"};

std::string article(const std::string &type) {
    if (type == "null") return "null";
    if (type == "integer" || type == "array" || type == "object") return "an " + type;
    return "a " + type;
}

std::string describe(const std::vector<std::string> &types) {
    if (types.empty()) return "any value";
    std::string out;
    for (size_t i = 0; i < types.size(); ++i) out += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + article(types[i]);
    return out;
}

// Checks one argument against its declared types, first coercing what OpenHands' LLM tool mapping sends
// in other shapes: "true"/"false" for a boolean, a whole float for an integer. Once per argument of every
// action: the value's type is looked up in the declared names, not each name's type tested on the value.
bool accept(const ArgSpec &a, nlohmann::json &v) {
    if (a.types.empty()) return true;
    const auto wants = [&](std::string_view t) { return std::find(a.types.begin(), a.types.end(), t) != a.types.end(); };
    if (v.is_string() && wants("boolean")) {
        const std::string &s = v.get_ref<const std::string &>();
        if (s == "true" || s == "false") v = s == "true";
    }
    // A float outside long long's range stays a float (and is refused): converting it would be undefined
    // behaviour (found by fuzz/envelope).
    if (v.is_number_float() && wants("integer")) {
        const double d = v.get<double>();
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == std::trunc(d)) v = static_cast<long long>(d);
    }
    switch (v.type()) {
        case nlohmann::json::value_t::string: return wants("string");
        case nlohmann::json::value_t::boolean: return wants("boolean");
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned: return wants("integer") || wants("number");
        case nlohmann::json::value_t::number_float: return wants("number");
        case nlohmann::json::value_t::array: return wants("array");
        case nlohmann::json::value_t::object: return wants("object");
        case nlohmann::json::value_t::null: return wants("null");
        default: return false;
    }
}

common::Result<ArgSpec> parse_arg(const std::string &action, const std::string &name, const nlohmann::ordered_json &j) {
    const std::string where = "\"provides.actions." + action + ".args." + name + "\"";
    if (!j.is_object())
        return common::fail(where + " must be an object");
    ArgSpec a;
    a.name = name;
    for (const auto &[key, _] : j.items()) {
        if (key != "type" && key != "required" && key != "default" && key != "description" && key != "deprecated")
            return common::fail(where + " has the unknown field \"" + key + "\" (type, required, default, description, deprecated)");
    }
    if (j.contains("type")) {
        const nlohmann::ordered_json &t = j.at("type");
        const nlohmann::ordered_json list = t.is_array() ? t : nlohmann::ordered_json::array({t});
        for (const auto &item : list) {
            if (!item.is_string() || std::find(kTypeNames.begin(), kTypeNames.end(), item.get<std::string>()) == kTypeNames.end())
                return common::fail(where + ".type must be one of string, boolean, integer, number, array, object, null (or a list of them)");
            a.types.push_back(item.get<std::string>());
        }
    }
    if (j.contains("required")) {
        if (!j.at("required").is_boolean())
            return common::fail(where + ".required must be a boolean");
        a.required = j.at("required").get<bool>();
    }
    if (j.contains("default")) {
        if (a.required)
            return common::fail(where + " cannot be both required and defaulted");
        a.default_value = nlohmann::json::parse(actionhost::common::dump_ordered_json(j.at("default")));
        nlohmann::json check = a.default_value;
        if (!accept(a, check))
            return common::fail(where + ".default must be " + describe(a.types));
    }
    if (j.contains("description") && j.at("description").is_string()) a.description = j.at("description").get<std::string>();
    if (j.contains("deprecated")) {
        if (!j.at("deprecated").is_boolean() || (j.at("deprecated").get<bool>() && (a.required || !a.default_value.is_discarded())))
            return common::fail(where + ".deprecated must be a boolean, on an argument neither required nor defaulted");
        a.deprecated = j.at("deprecated").get<bool>();
    }
    return a;
}

}  // namespace

bool ActionSpec::matches(const nlohmann::json &raw_args) const {
    for (const auto &[key, value] : when.items())
        if (!raw_args.is_object() || !raw_args.contains(key) || raw_args.at(key) != value) return false;
    return true;
}

bool ActionSpec::interrupts(const nlohmann::json &args) const {
    if (interrupt_when.empty() || !args.is_object()) return false;
    for (const auto &[key, value] : interrupt_when.items())
        if (!args.contains(key) || args.at(key) != value) return false;
    return true;
}

common::Status ActionSpec::validate(nlohmann::json &args, const std::vector<ArgSpec> &shared) const {
    if (!checked) return common::ok();
    const auto declared = [&](const std::string &key) {
        for (const auto *list : {&shared, &this->args})
            for (const auto &a : *list)
                if (a.name == key) return true;
        return false;
    };
    for (auto it = args.begin(); it != args.end(); ++it)
        if (!declared(it.key())) return common::fail("unknown argument '" + it.key() + "' for action '" + name + "'");
    // One lookup of each declared argument: every `echo hi` passes here.
    for (const auto *list : {&shared, &this->args}) {
        for (const auto &a : *list) {
            const auto found = args.find(a.name);
            if (a.deprecated) {
                if (found != args.end()) args.erase(found);
                continue;
            }
            if (found == args.end()) {
                if (a.required) return common::fail("missing required argument '" + a.name + "' for action '" + name + "'");
                if (a.default_value.is_discarded()) continue;  // accepted, but filled by nobody
                args.emplace(a.name, a.default_value);
                continue;
            }
            if (!accept(a, *found))
                return common::fail("argument '" + a.name + "' of action '" + name + "' must be " + describe(a.types) + ", got " +
                                    actionhost::common::dump_json(*found));
        }
    }
    return common::ok();
}

nlohmann::json ActionSpec::json_schema() const {
    nlohmann::json props = nlohmann::json::object(), required = nlohmann::json::array();
    for (const auto &a : args) {
        nlohmann::json p = nlohmann::json::object();
        if (a.types.size() == 1) p["type"] = a.types.front();
        else if (!a.types.empty()) p["type"] = a.types;
        if (!a.default_value.is_discarded()) p["default"] = a.default_value;
        if (!a.description.empty()) p["description"] = a.description;
        if (a.deprecated) p["deprecated"] = true;
        props[a.name] = p;
        if (a.required) required.push_back(a.name);
    }
    nlohmann::json s = {{"type", "object"}, {"properties", props}, {"additionalProperties", !checked}};
    if (!required.empty()) s["required"] = required;
    if (!description.empty()) s["description"] = description;
    return s;
}

common::Result<std::vector<ActionSpec>> parse_action_specs(const nlohmann::ordered_json &actions) {
    std::vector<ActionSpec> out;
    if (actions.is_array()) {  // names only
        for (const auto &n : actions) {
            if (!n.is_string() || n.get<std::string>().empty())
                return common::fail("\"provides.actions\" must be an array of names or an object of declarations");
            ActionSpec s;
            s.name = n.get<std::string>();
            s.checked = false;
            out.push_back(std::move(s));
        }
        return out;
    }
    if (!actions.is_object())
        return common::fail("\"provides.actions\" must be an array of names or an object of declarations");
    for (const auto &[name, decl] : actions.items()) {
        const std::string where = "\"provides.actions." + name + "\"";
        if (name.empty() || !decl.is_object())
            return common::fail(where + " must be an object");
        ActionSpec s;
        s.name = name;
        s.checked = decl.contains("args");  // no "args": the plugin checks its arguments itself
        for (const auto &[key, value] : decl.items()) {
            if (key == "description" && value.is_string()) {
                s.description = value.get<std::string>();
            } else if (key == "when") {
                if (!value.is_object() || value.empty())
                    return common::fail(where + ".when must be an object of argument values");
                s.when = nlohmann::json::parse(actionhost::common::dump_ordered_json(value));
            } else if (key == "interrupt_when") {
                if (!value.is_object() || value.empty())
                    return common::fail(where + ".interrupt_when must be an object of argument values");
                s.interrupt_when = nlohmann::json::parse(actionhost::common::dump_ordered_json(value));
            } else if (key == "args") {
                if (!value.is_object())
                    return common::fail(where + ".args must be an object");
                for (const auto &[arg, spec] : value.items()) {
                    auto a = parse_arg(name, arg, spec);
                    if (!a) return a.as_failure();
                    s.args.push_back(std::move(a).value());
                }
            } else {
                return common::fail(where + " has the unknown field \"" + key + "\" (description, when, interrupt_when, args)");
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace actionhost::modules
