#include "run_request.hpp"

#include "actionhost/common/json_io.hpp"

namespace actionhost::bash {

namespace {

// OpenHands' tool mapping passes `is_input` as "true"/"false"; booleans are what the dataclass holds.
bool read_flag(const nlohmann::json &args, const char *key, bool &out, std::string *error) {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) return true;
    if (it->is_boolean()) {
        out = it->get<bool>();
        return true;
    }
    if (it->is_string()) {
        const std::string s = it->get<std::string>();
        if (s == "true" || s == "True") {
            out = true;
            return true;
        }
        if (s == "false" || s == "False") {
            out = false;
            return true;
        }
    }
    if (it->is_number_integer()) {
        out = it->get<long long>() != 0;
        return true;
    }
    *error = std::string("Invalid value for `") + key + "`: expected a boolean";
    return false;
}

}  // namespace

std::optional<RunRequest> parse_run_request(std::string_view action_json, std::string *error) {
    auto parsed = common::parse_json(action_json);
    if (!parsed || !parsed.value().is_object()) {
        *error = "Invalid action JSON: " + (parsed ? std::string("not an object") : parsed.error().message);
        return std::nullopt;
    }
    const nlohmann::json &j = parsed.value();
    auto args_it = j.find("args");
    if (args_it == j.end() || !args_it->is_object()) {
        *error = "Invalid run action: `args` must be an object";
        return std::nullopt;
    }
    const nlohmann::json &args = *args_it;
    RunRequest rq;
    auto cmd = args.find("command");
    if (cmd == args.end() || !cmd->is_string()) {
        *error = "Invalid run action: `command` must be a string";
        return std::nullopt;
    }
    rq.command = cmd->get<std::string>();
    if (rq.command.find('\0') != std::string::npos) {  // bash cannot receive it: it would run a truncated command
        *error = "Invalid run action: `command` contains a NUL byte, which a shell command cannot hold";
        return std::nullopt;
    }
    if (!read_flag(args, "is_input", rq.is_input, error) || !read_flag(args, "blocking", rq.blocking, error) ||
        !read_flag(args, "is_static", rq.is_static, error) || !read_flag(args, "hidden", rq.hidden, error) ||
        !read_flag(args, "separate_stderr", rq.separate_stderr, error))
        return std::nullopt;
    auto cwd = args.find("cwd");
    if (cwd != args.end() && cwd->is_string() && !cwd->get<std::string>().empty()) rq.cwd = cwd->get<std::string>();
    auto timeout = j.find("timeout");
    if (timeout != j.end() && !timeout->is_null()) {
        if (!timeout->is_number()) {
            *error = "Invalid run action: `timeout` must be a number";
            return std::nullopt;
        }
        const double t = timeout->get<double>();
        if (t > 0) rq.timeout = t;
    }
    return rq;
}

}  // namespace actionhost::bash
