#include "policy/rules_policy.hpp"

#include <fnmatch.h>
#include <re2/re2.h>

#include <filesystem>

#include "policy/command_forms.hpp"

namespace actionhost::host {
namespace fs = std::filesystem;
namespace {

common::Result<std::vector<std::string>> string_list(const RulesPolicy::ConfigGet &get, const std::string &key) {
    const char *v = get(key);
    std::vector<std::string> out;
    if (v == nullptr || std::string(v).empty()) return out;
    const auto j = nlohmann::json::parse(v, nullptr, false);
    if (!j.is_array()) return common::fail(key + " must be a JSON list of strings, got: " + v);
    for (const auto &e : j) {
        if (!e.is_string()) return common::fail(key + " must be a JSON list of strings, got: " + v);
        out.push_back(e.get<std::string>());
    }
    return out;
}

bool below(const std::string &path, const std::string &dir) {
    if (dir == "/") return true;
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

// A glob matches the path or one of its ancestors: "/home/*/.ssh" denies what is below .ssh too.
bool glob_hits(const std::string &pattern, const std::string &path) {
    fs::path p(path);
    for (int guard = 0; guard < 4096; ++guard) {
        if (::fnmatch(pattern.c_str(), p.c_str(), 0) == 0) return true;
        if (!p.has_relative_path()) return false;
        p = p.parent_path();
    }
    return false;
}

std::string canonical_or_same(const std::string &p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p : c.lexically_normal().string();
}

}  // namespace

std::vector<std::string> path_forms(const std::string &path, const std::string &cwd) {
    fs::path p(path);
    if (p.is_relative()) p = fs::path(cwd) / p;
    std::string lexical = p.lexically_normal().string();
    while (lexical.size() > 1 && lexical.back() == '/') lexical.pop_back();
    std::vector<std::string> forms{lexical};
    std::string resolved = canonical_or_same(lexical);
    while (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();
    if (resolved != lexical) forms.push_back(resolved);
    return forms;
}

RulesPolicy::RulesPolicy() = default;
RulesPolicy::~RulesPolicy() = default;
RulesPolicy::RulesPolicy(RulesPolicy &&) noexcept = default;
RulesPolicy &RulesPolicy::operator=(RulesPolicy &&) noexcept = default;

common::Result<RulesPolicy> RulesPolicy::from_config(const ConfigGet &get) {
    RulesPolicy p;
    auto commands = string_list(get, "security.deny_commands");
    if (!commands) return commands.as_failure();
    for (size_t i = 0; i < commands.value().size(); ++i) {
        const std::string &pattern = commands.value()[i];
        RE2::Options o;
        o.set_log_errors(false);
        auto re = std::make_unique<RE2>(pattern, o);
        if (!re->ok())
            return common::fail("security.deny_commands[" + std::to_string(i) + "] `" + pattern +
                                "` is not a valid regular expression (RE2 syntax): " + re->error());
        p.commands_.push_back({pattern, std::move(re)});
    }
    auto paths = string_list(get, "security.deny_paths");
    if (!paths) return paths.as_failure();
    for (size_t i = 0; i < paths.value().size(); ++i) {
        const std::string &entry = paths.value()[i];
        if (entry.empty() || entry[0] != '/')
            return common::fail("security.deny_paths[" + std::to_string(i) + "] `" + entry + "` must be an absolute path or glob");
        PathRule rule{entry, {}, entry.find_first_of("*?[") != std::string::npos};
        if (rule.glob) rule.forms = {entry};
        else rule.forms = path_forms(entry, "/");  // a denied /etc that is a symlink denies its target too
        p.paths_.push_back(std::move(rule));
    }
    return p;
}

PolicyDecision RulesPolicy::check(const std::string &action, const nlohmann::json &args, const std::string &cwd) const {
    PolicyDecision d;
    d.action = action;
    d.module = "rules";
    auto deny = [&](std::string rule, std::string reason) {
        d.verdict = PolicyVerdict::Deny;
        d.rule = std::move(rule);
        d.reason = std::move(reason);
        return d;
    };
    if (!commands_.empty() && action == "run") {
        const auto c = args.find("command");
        if (c != args.end() && c->is_string()) {
            const std::vector<std::string> forms = command_forms(c->get_ref<const std::string &>());
            for (size_t i = 0; i < commands_.size(); ++i)
                for (const auto &form : forms)
                    if (RE2::PartialMatch(form, *commands_[i].re))
                        return deny("deny_commands[" + std::to_string(i) + "] (`" + commands_[i].pattern + "`)",
                                    "the command matches a denied pattern");
        }
    }
    if (!paths_.empty()) {
        const auto p = args.find("path");
        if (p != args.end() && p->is_string()) {
            const std::vector<std::string> forms = path_forms(p->get_ref<const std::string &>(), cwd);
            for (size_t i = 0; i < paths_.size(); ++i)
                for (const auto &form : forms) {
                    bool hit = false;
                    if (paths_[i].glob) hit = glob_hits(paths_[i].entry, form);
                    else
                        for (const auto &denied : paths_[i].forms) hit = hit || below(form, denied);
                    if (hit)
                        return deny("deny_paths[" + std::to_string(i) + "] (`" + paths_[i].entry + "`)",
                                    "the path " + form + " is denied");
                }
        }
    }
    return d;
}

}  // namespace actionhost::host
