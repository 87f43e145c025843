#include "run_request.hpp"

#include "actionhost/common/json_io.hpp"

namespace actionhost::bash {

namespace {

// OpenHands' tool mapping passes `is_input` as "true"/"false"; booleans are what the dataclass holds.
common::Status read_flag(const nlohmann::json &args, const char *key, bool &out) {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) return common::ok();
    if (it->is_boolean()) {
        out = it->get<bool>();
        return common::ok();
    }
    if (it->is_string()) {
        const std::string s = it->get<std::string>();
        if (s == "true" || s == "True") {
            out = true;
            return common::ok();
        }
        if (s == "false" || s == "False") {
            out = false;
            return common::ok();
        }
    }
    if (it->is_number_integer()) {
        out = it->get<long long>() != 0;
        return common::ok();
    }
    return common::fail(std::string("Invalid value for `") + key + "`: expected a boolean");
}

}  // namespace

common::Result<RunRequest> parse_run_request(std::string_view action_json) {
    auto parsed = common::parse_json(action_json);
    if (!parsed || !parsed.value().is_object())
        return common::fail("Invalid action JSON: " + (parsed ? std::string("not an object") : parsed.error().message));
    const nlohmann::json &j = parsed.value();
    auto args_it = j.find("args");
    if (args_it == j.end() || !args_it->is_object())
        return common::fail("Invalid run action: `args` must be an object");
    const nlohmann::json &args = *args_it;
    RunRequest rq;
    auto cmd = args.find("command");
    if (cmd == args.end() || !cmd->is_string())
        return common::fail("Invalid run action: `command` must be a string");
    rq.command = cmd->get<std::string>();
    if (rq.command.find('\0') != std::string::npos)  // bash cannot receive it: it would run a truncated command
        return common::fail("Invalid run action: `command` contains a NUL byte, which a shell command cannot hold");
    for (auto [key, out] : {std::pair<const char *, bool *>{"is_input", &rq.is_input}, {"blocking", &rq.blocking},
                            {"is_static", &rq.is_static}, {"hidden", &rq.hidden}, {"separate_stderr", &rq.separate_stderr}})
        if (auto r = read_flag(args, key, *out); !r) return r.as_failure();
    auto cwd = args.find("cwd");
    if (cwd != args.end() && cwd->is_string() && !cwd->get<std::string>().empty()) rq.cwd = cwd->get<std::string>();
    auto timeout = j.find("timeout");
    if (timeout != j.end() && !timeout->is_null()) {
        if (!timeout->is_number())
            return common::fail("Invalid run action: `timeout` must be a number");
        const double t = timeout->get<double>();
        if (t > 0) rq.timeout = t;
    }
    return rq;
}

}  // namespace actionhost::bash
