#include "actions.hpp"

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/observation.hpp"
#include "py_text.hpp"
#include "text_codec.hpp"
#include "unified_diff.hpp"

namespace actionhost::agent_skills {

namespace {

using ojson = nlohmann::ordered_json;

std::string dump(const ojson &j) { return actionhost::common::dump_ordered_json(j); }

std::string error_obs(const std::string &text) { return common::dump_json(common::error_observation(text)); }

// An optional string argument: absent/null → nullopt; a non-string fails, naming the argument.
common::Result<std::optional<std::string>> opt_string(const nlohmann::json &args, const char *key) {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return common::fail("Invalid `" + std::string(key) + "` parameter: " + py_str(*it) + ". It should be a string.");
    return std::optional<std::string>(it->get<std::string>());
}

ojson json_or_null(const std::optional<std::string> &s) { return s ? ojson(*s) : ojson(nullptr); }

// Python's int(str): surrounding whitespace, an optional sign, digits (underscores between digits).
std::optional<long long> parse_int(std::string_view s) {
    s = py_strip(s);
    if (s.empty()) return std::nullopt;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        ++i;
    }
    if (i >= s.size()) return std::nullopt;
    long long v = 0;
    bool prev_digit = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '_' && prev_digit && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
            prev_digit = false;
            continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        if (v > (1LL << 60)) return std::nullopt;
        v = v * 10 + (c - '0');
        prev_digit = true;
    }
    return neg ? -v : v;
}

}  // namespace

AgentSkillsService::AgentSkillsService(std::string workspace_root, PathPolicy policy)
    : workspace_root_(workspace_root), editor_(std::move(workspace_root), std::move(policy)) {}

std::string AgentSkillsService::execute(std::string_view action_json, const std::string &session, const std::string &cwd) {
    try {
        auto parsed = common::parse_json(action_json);
        if (!parsed || !parsed.value().is_object()) return error_obs("agent_skills: malformed action: " + (parsed ? std::string() : parsed.error().message));
        const nlohmann::json &env = parsed.value();
        const std::string action = env.value("action", "");
        static const nlohmann::json kEmpty = nlohmann::json::object();
        const nlohmann::json &args = env.contains("args") && env["args"].is_object() ? env["args"] : kEmpty;
        if (action == "edit") return edit(args);
        if (action == "read") return read(args);
        if (action == "agent_skill") return agent_skill(args, session, cwd);
        return error_obs("agent_skills: unsupported action '" + action + "' (this plugin serves edit, read with impl_source \"oh_aci\", and agent_skill)");
    } catch (const std::exception &e) {
        return error_obs(std::string("agent_skills: ") + e.what());
    }
}

std::string AgentSkillsService::edit(const nlohmann::json &args) {
    std::string bad;  // the first malformed argument's refusal
    auto string_arg = [&](const char *key) -> std::optional<std::string> {
        auto r = opt_string(args, key);
        if (r) return std::move(r).value();
        if (bad.empty()) bad = r.error().message;
        return std::nullopt;
    };
    const std::string path = args.contains("path") && args["path"].is_string() ? args["path"].get<std::string>() : "";
    const std::optional<std::string> old_str = string_arg("old_str");
    const std::optional<std::string> new_str = string_arg("new_str");
    const std::optional<std::string> file_text = string_arg("file_text");
    auto respond = [&](const std::string &content, bool prev_exist, const std::string &diff) {
        ojson obs;
        obs["message"] = "I edited the file " + path + ".";
        obs["observation"] = "edit";
        obs["content"] = content;
        ojson extras;
        extras["path"] = path;
        extras["prev_exist"] = prev_exist;
        extras["old_content"] = json_or_null(old_str);
        extras["new_content"] = json_or_null(new_str);
        extras["impl_source"] = "oh_aci";
        extras["diff"] = diff;
        extras["_diff_cache"] = nullptr;
        obs["extras"] = std::move(extras);
        return dump(obs);
    };
    const std::string impl = args.contains("impl_source") && args["impl_source"].is_string() ? args["impl_source"].get<std::string>() : "oh_aci";
    if (impl != "oh_aci")
        return error_obs("edit with impl_source '" + impl + "' is not executed by the runtime: LLM-based edits are made by the client with read and write actions; only impl_source 'oh_aci' is served here.");
    if (!args.contains("path") || !args["path"].is_string())
        return respond("ERROR:\nInvalid `path` parameter: " + py_str(args.value("path", nlohmann::json())) + ". It should be a string.", false, "");
    if (!bad.empty()) return respond("ERROR:\n" + bad, false, "");

    EditorRequest req;
    req.command = args.contains("command") && args["command"].is_string() ? args["command"].get<std::string>() : py_str(args.value("command", nlohmann::json("")));
    req.path = path;
    req.file_text = file_text;
    req.old_str = old_str;
    req.new_str = new_str;
    if (args.contains("insert_line") && !args["insert_line"].is_null()) {
        const nlohmann::json &v = args["insert_line"];
        std::optional<long long> n;
        if (v.is_number_integer()) n = v.get<long long>();
        else if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())))
            n = static_cast<long long>(v.get<double>());
        else if (v.is_string()) n = parse_int(v.get<std::string>());
        if (!n) return respond("ERROR:\nInvalid insert_line value: '" + py_str(v) + "'. Expected an integer.", false, "");
        req.insert_line = n;
    }
    EditorResult r = editor_.run(req);
    if (!r.ok()) return respond("ERROR:\n" + r.error, r.prev_exist, "");
    // Views, not value_or copies: both texts may be the whole file.
    const std::string diff = unified_diff_0(r.old_content ? std::string_view(*r.old_content) : std::string_view(),
                                            r.new_content ? std::string_view(*r.new_content) : std::string_view(), path);
    return respond(r.output, r.prev_exist, diff);
}

std::string AgentSkillsService::read(const nlohmann::json &args) {
    if (!args.contains("path") || !args["path"].is_string()) return error_obs("read: `path` must be a string");
    const std::string path = args["path"].get<std::string>();
    // The server's binary check runs first, on the path as given; missing files count as text.
    if (is_absolute(path) && stat_path(path).kind == FileKind::regular) {
        if (auto head = read_bytes(path, 1024); head && looks_binary(head.value())) return error_obs("ERROR_BINARY_FILE");
    }
    EditorRequest req;
    req.command = "view";
    req.path = path;
    if (args.contains("view_range")) req.view_range = args["view_range"];
    EditorResult r = editor_.run(req);
    ojson obs;
    obs["message"] = "I read the file " + path + ".";
    obs["observation"] = "read";
    obs["content"] = r.ok() ? r.output : "ERROR:\n" + r.error;
    obs["extras"] = ojson{{"path", path}, {"impl_source", "oh_aci"}};
    return dump(obs);
}

std::string AgentSkillsService::agent_skill(const nlohmann::json &args, const std::string &session, const std::string &cwd) {
    if (!args.contains("name") || !args["name"].is_string())
        return error_obs("agent_skill: `name` must be a string naming a skill (open_file, goto_line, scroll_down, scroll_up, search_dir, search_file, find_file, parse_pdf, parse_docx, parse_pptx, parse_xlsx, parse_latex, file_editor)");
    const std::string name = args["name"].get<std::string>();
    const nlohmann::json skill_args = args.contains("args") ? args["args"] : nlohmann::json::object();
    SkillState *state;
    {
        std::lock_guard<std::mutex> lock(states_mu_);
        state = &states_[session];  // std::map nodes are stable; one session never runs twice at once
    }
    SkillContext ctx{cwd.empty() ? workspace_root_ : cwd, &editor_};
    const std::string printed = run_skill(*state, ctx, name, skill_args);
    ojson obs;
    obs["message"] = "Ran agent skill " + name + ".";
    obs["observation"] = "agent_skill";
    obs["content"] = std::string(py_rstrip(printed));
    ojson extras;
    extras["name"] = name;
    extras["args"] = ojson::parse(actionhost::common::dump_json(skill_args));
    extras["success"] = printed.rfind("ERROR: ", 0) != 0;
    obs["extras"] = std::move(extras);
    return dump(obs);
}

}  // namespace actionhost::agent_skills
