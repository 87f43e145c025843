#include "action_signatures.hpp"

#include <vector>

namespace actionhost::browser {
namespace {

struct Param {
    const char *name;
    std::optional<nlohmann::json> default_value;
};

struct Signature {
    const char *name;
    std::vector<Param> params;
};

const std::vector<Signature> &signatures() {
    static const std::vector<Signature> sigs = {
        {"send_msg_to_user", {{"text", {}}}},
        {"report_infeasible", {{"reason", {}}}},
        {"noop", {{"wait_ms", nlohmann::json(1000)}}},
        {"fill", {{"bid", {}}, {"value", {}}}},
        {"select_option", {{"bid", {}}, {"options", {}}}},
        {"click", {{"bid", {}}, {"button", nlohmann::json("left")}, {"modifiers", nlohmann::json::array()}}},
        {"dblclick", {{"bid", {}}, {"button", nlohmann::json("left")}, {"modifiers", nlohmann::json::array()}}},
        {"hover", {{"bid", {}}}},
        {"press", {{"bid", {}}, {"key_comb", {}}}},
        {"focus", {{"bid", {}}}},
        {"clear", {{"bid", {}}}},
        {"drag_and_drop", {{"from_bid", {}}, {"to_bid", {}}}},
        {"upload_file", {{"bid", {}}, {"file", {}}}},
        {"scroll", {{"delta_x", {}}, {"delta_y", {}}}},
        {"goto", {{"url", {}}}},
        {"go_back", {}},
        {"go_forward", {}},
        {"new_tab", {}},
        {"tab_close", {}},
        {"tab_focus", {{"index", {}}}},
    };
    return sigs;
}

const Signature *find(const std::string &name) {
    for (const auto &s : signatures())
        if (name == s.name) return &s;
    return nullptr;
}

std::string quoted_list(const std::vector<std::string> &names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
        out += "'" + names[i] + "'";
    }
    return out;
}

}  // namespace

bool is_known_action(const std::string &name) { return find(name) != nullptr; }

common::Result<BoundCall> bind_call(const ParsedCall &call) {
    const Signature *sig = find(call.name);
    if (sig == nullptr) return common::fail("NameError: Invalid action type '" + call.name + "'.");
    const std::string fn = call.name + "()";
    const size_t max_pos = sig->params.size();
    if (call.args.size() > max_pos) {
        size_t required = 0;
        for (const auto &p : sig->params)
            if (!p.default_value) ++required;
        std::string takes = required == max_pos ? std::to_string(max_pos)
                                                : "from " + std::to_string(required) + " to " + std::to_string(max_pos);
        const bool one = required == max_pos && max_pos == 1;
        return common::fail("TypeError: " + fn + " takes " + takes + " positional argument" + (one ? "" : "s") + " but " +
                            std::to_string(call.args.size()) + (call.args.size() == 1 ? " was" : " were") + " given");
    }
    BoundCall bound{call.name, {}};
    for (size_t i = 0; i < call.args.size(); ++i) bound.args[sig->params[i].name] = call.args[i];
    for (const auto &[key, value] : call.kwargs) {
        bool known = false;
        for (const auto &p : sig->params)
            if (key == p.name) known = true;
        if (!known) return common::fail("TypeError: " + fn + " got an unexpected keyword argument '" + key + "'");
        if (bound.args.count(key) != 0) return common::fail("TypeError: " + fn + " got multiple values for argument '" + key + "'");
        bound.args[key] = value;
    }
    std::vector<std::string> missing;
    for (const auto &p : sig->params) {
        if (bound.args.count(p.name) != 0) continue;
        if (p.default_value)
            bound.args[p.name] = *p.default_value;
        else
            missing.emplace_back(p.name);
    }
    if (!missing.empty())
        return common::fail("TypeError: " + fn + " missing " + std::to_string(missing.size()) + " required positional argument" +
                            (missing.size() == 1 ? "" : "s") + ": " + quoted_list(missing));
    return bound;
}

}  // namespace actionhost::browser
