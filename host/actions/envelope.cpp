#include "actions/envelope.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::host {

const std::vector<modules::ArgSpec> &shared_action_args() {
    static const std::vector<modules::ArgSpec> a = [] {
        std::vector<modules::ArgSpec> list(4);
        list[0].name = "thought";
        list[0].types = {"string"};
        list[0].default_value = "";
        list[1].name = "security_risk";
        list[1].types = {"integer"};
        list[1].default_value = -1;
        list[2].name = "image_urls";  // accepted, checked by nobody, filled by nobody
        list[3].name = "impl_source";
        return list;
    }();
    return a;
}

bool is_client_only_action(const std::string &a) {
    static const char *names[] = {"message", "system", "think", "finish", "reject", "delegate", "recall",
                                  "change_agent_state", "null", "condensation", "condensation_request",
                                  "task_tracking", "start", "pause", "resume", "stop"};
    for (const char *n : names)
        if (a == n) return true;
    return false;
}

nlohmann::json Envelope::normalised() && {
    nlohmann::json j = nlohmann::json::object();
    j["action"] = action;
    j["args"] = std::move(args);
    if (timeout) j["timeout"] = *timeout;
    return j;
}

common::Result<Envelope> parse_envelope(nlohmann::json in) {
    if (!in.is_object()) {
        return common::fail("the action must be a JSON object");
    }
    // Each field is looked up once (find, not contains then at): every action passes here.
    const auto action = in.find("action");
    if (action == in.end()) {
        return common::fail("'action' key is not found in the action dict");
    }
    if (!action->is_string()) {
        return common::fail("'action' must be a string, got " + common::dump_json(*action));
    }
    Envelope e;
    e.action = std::move(action->get_ref<std::string &>());
    nlohmann::json args = nlohmann::json::object();
    if (const auto given = in.find("args"); given != in.end()) {
        if (!given->is_object()) {
            return common::fail("'args' must be a JSON object");
        }
        args = std::move(*given);
    }
    // Normalisation rules of openhands/events/serialization/action.py (deprecated arguments of one action
    // type are declared by its provider: "deprecated" in the manifest).
    for (const char *dropped : {"timestamp", "keep_prompt", "task_completed"})
        if (const auto it = args.find(dropped); it != args.end()) args.erase(it);
    if (const auto it = args.find("is_confirmed"); it != args.end()) {
        nlohmann::json v = std::move(*it);
        args.erase(it);
        if (!args.contains("confirmation_state")) args["confirmation_state"] = std::move(v);
    }
    if (const auto it = args.find("images_urls"); it != args.end()) {
        nlohmann::json v = std::move(*it);
        args.erase(it);
        args["image_urls"] = std::move(v);
    }
    if (const auto sr = args.find("security_risk"); sr != args.end()) {
        if (!sr->is_number_integer() || sr->get<long long>() < -1 || sr->get<long long>() > 2) args.erase(sr);
    }
    if (const auto t = in.find("timeout"); t != in.end() && !t->is_null()) {
        if (!t->is_number() || t->get<double>() <= 0) {
            return common::fail("'timeout' must be a positive number of seconds, got " + common::dump_json(*t));
        }
        e.timeout = t->get<double>();
    }
    e.args = std::move(args);
    return e;
}

}  // namespace actionhost::host
