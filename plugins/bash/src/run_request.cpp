#include "run_request.hpp"

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/simdjson_document.hpp>

#include <cstdint>
#include <optional>
#include <tuple>

namespace actionhost::bash {

namespace {

using simdjson::dom::element;

// The last value of `key` in `obj`, as nlohmann's parser keeps the last of duplicate keys (simdjson's
// at_key finds the first).
std::optional<element> last_of(simdjson::dom::object obj, std::string_view key) {
    std::optional<element> found;
    for (simdjson::dom::key_value_pair field : obj)
        if (field.key == key) found = field.value;
    return found;
}

// The arguments `run` reads, each the last of its duplicates, found in one walk of `args`.
struct RunArgs {
    std::optional<element> command, cwd, is_input, blocking, is_static, hidden, separate_stderr, tty, open_stdin;
};
RunArgs run_args_of(simdjson::dom::object args) {
    RunArgs a;
    const std::pair<std::string_view, std::optional<element> *> wanted[] = {
        {"command", &a.command},     {"cwd", &a.cwd},       {"is_input", &a.is_input},
        {"blocking", &a.blocking},   {"is_static", &a.is_static}, {"hidden", &a.hidden},
        {"separate_stderr", &a.separate_stderr}, {"tty", &a.tty}, {"open_stdin", &a.open_stdin}};
    for (simdjson::dom::key_value_pair field : args)
        for (const auto &[key, slot] : wanted)
            if (field.key == key) *slot = field.value;
    return a;
}

// OpenHands' tool mapping passes `is_input` as "true"/"false"; booleans are what the dataclass holds.
common::Status read_flag(const std::optional<element> &found, const char *key, bool &out) {
    if (!found || found->is_null()) return common::ok();
    const element v = *found;
    if (v.is_bool()) {
        out = v.get_bool().value_unsafe();
        return common::ok();
    }
    if (v.is_string()) {
        const std::string_view s = v.get_string().value_unsafe();
        if (s == "true" || s == "True") {
            out = true;
            return common::ok();
        }
        if (s == "false" || s == "False") {
            out = false;
            return common::ok();
        }
    }
    if (v.is_int64() || v.is_uint64()) {
        out = v.is_int64() ? v.get_int64().value_unsafe() != 0 : v.get_uint64().value_unsafe() != 0;
        return common::ok();
    }
    return common::fail(std::string("Invalid value for `") + key + "`: expected a boolean");
}


common::Result<RunRequest> read_run_request(element root) {
    simdjson::dom::object top;
    if (root.get_object().get(top) != simdjson::SUCCESS) return common::fail("Invalid action JSON: not an object");
    const std::optional<element> args_value = last_of(top, "args");
    simdjson::dom::object args;
    if (!args_value || args_value->get_object().get(args) != simdjson::SUCCESS)
        return common::fail("Invalid run action: `args` must be an object");
    RunRequest rq;
    const RunArgs a = run_args_of(args);
    if (!a.command || !a.command->is_string()) return common::fail("Invalid run action: `command` must be a string");
    rq.command = std::string(a.command->get_string().value_unsafe());
    if (rq.command.find('\0') != std::string::npos)  // bash cannot receive it: it would run a truncated command
        return common::fail("Invalid run action: `command` contains a NUL byte, which a shell command cannot hold");
    for (auto [found, key, out] : {std::tuple<const std::optional<element> *, const char *, bool *>{&a.is_input, "is_input", &rq.is_input},
                                   {&a.blocking, "blocking", &rq.blocking},
                                   {&a.is_static, "is_static", &rq.is_static},
                                   {&a.hidden, "hidden", &rq.hidden},
                                   {&a.separate_stderr, "separate_stderr", &rq.separate_stderr},
                                   {&a.tty, "tty", &rq.tty},
                                   {&a.open_stdin, "open_stdin", &rq.open_stdin}})
        if (auto r = read_flag(*found, key, *out); !r) return r.as_failure();
    if (rq.open_stdin && rq.tty)
        return common::fail("Invalid run action: `open_stdin` needs `tty` false (with the terminal, input goes "
                            "through `is_input`)");
    if (a.cwd && a.cwd->is_string() && !a.cwd->get_string().value_unsafe().empty()) rq.cwd = std::string(a.cwd->get_string().value_unsafe());
    const std::optional<element> timeout = last_of(top, "timeout");
    if (timeout && !timeout->is_null()) {
        if (!timeout->is_number()) return common::fail("Invalid run action: `timeout` must be a number");
        const double t = timeout->is_double() ? timeout->get_double().value_unsafe()
                         : timeout->is_int64() ? static_cast<double>(timeout->get_int64().value_unsafe())
                                               : static_cast<double>(timeout->get_uint64().value_unsafe());
        if (t > 0) rq.timeout = t;
    }
    return rq;
}

}  // namespace

common::Result<RunRequest> parse_run_request(std::string_view action_json) {
    // Fields straight from simdjson's document: a nlohmann document of the whole action, built and thrown
    // away, cost the plugin about 20k instructions per command. Deep enough for anything the host's
    // depth limit lets through, and any size (the host's body limit bounds it), so for the host's own
    // JSON simdjson always reads it.
    std::optional<common::Result<RunRequest>> read;
    const auto visit = [&](element root) { read = read_run_request(root); };
    if (common::with_simdjson_document<common::kMaxJsonDepth + 8, SIZE_MAX>(action_json, visit))
        return std::move(*read);
    // Not JSON simdjson reads: nlohmann words why (integers beyond 64 bits, the one thing simdjson refuses
    // and nlohmann accepts, never come from the host, which writes those as doubles).
    auto parsed = common::parse_json(action_json);
    return common::fail("Invalid action JSON: " + (parsed ? std::string("a number beyond 64 bits") : parsed.error().message));
}

}  // namespace actionhost::bash
