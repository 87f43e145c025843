#include "actions/envelope.hpp"

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
    if (!in.contains("action")) {
        return common::fail("'action' key is not found in the action dict");
    }
    if (!in.at("action").is_string()) {
        return common::fail("'action' must be a string, got " + in.at("action").dump());
    }
    Envelope e;
    e.action = in.at("action").get<std::string>();
    nlohmann::json args = nlohmann::json::object();
    if (in.contains("args")) {
        if (!in.at("args").is_object()) {
            return common::fail("'args' must be a JSON object");
        }
        args = std::move(in.at("args"));
    }
    // Normalisation rules of openhands/events/serialization/action.py (deprecated arguments of one action
    // type are declared by its provider: "deprecated" in the manifest).
    args.erase("timestamp");
    args.erase("keep_prompt");
    args.erase("task_completed");
    if (args.contains("is_confirmed")) {
        nlohmann::json v = args["is_confirmed"];
        args.erase("is_confirmed");
        if (!args.contains("confirmation_state")) args["confirmation_state"] = v;
    }
    if (args.contains("images_urls")) {
        nlohmann::json v = args["images_urls"];
        args.erase("images_urls");
        args["image_urls"] = v;
    }
    if (args.contains("security_risk")) {
        const auto &sr = args["security_risk"];
        if (!sr.is_number_integer() || sr.get<long long>() < -1 || sr.get<long long>() > 2) args.erase("security_risk");
    }
    if (in.contains("timeout") && !in.at("timeout").is_null()) {
        if (!in.at("timeout").is_number() || in.at("timeout").get<double>() <= 0) {
            return common::fail("'timeout' must be a positive number of seconds, got " + in.at("timeout").dump());
        }
        e.timeout = in.at("timeout").get<double>();
    }
    e.args = std::move(args);
    return e;
}

}  // namespace actionhost::host
