// The built-in policy module "rules": `security.deny_commands` (regular expressions on a `run` command) and
// `security.deny_paths` (paths no action's "path" argument may reach). Runs in the host (it is ours and
// bounded: RE2 matches in time linear in the text, docs/design.md "Policy").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <actionhost/common/result.hpp>
#include <nlohmann/json.hpp>

#include "policy/policy_decision.hpp"

namespace re2 {
class RE2;
}

namespace actionhost::host {

class RulesPolicy {
  public:
    using ConfigGet = std::function<const char *(const std::string &key)>;
    // Reads the two keys (each a JSON list of strings); an invalid pattern, or a deny_paths entry that is
    // not absolute, is an error naming it (the host then refuses to start).
    static common::Result<RulesPolicy> from_config(const ConfigGet &get);
    RulesPolicy();
    ~RulesPolicy();
    RulesPolicy(RulesPolicy &&) noexcept;
    RulesPolicy &operator=(RulesPolicy &&) noexcept;

    bool empty() const { return commands_.empty() && paths_.empty(); }
    // Deny naming the first rule that matches, else allow. `args` are the validated arguments; relative
    // paths resolve against `cwd`. Thread: any, concurrently.
    PolicyDecision check(const std::string &action, const nlohmann::json &args, const std::string &cwd) const;

  private:
    struct CommandRule {
        std::string pattern;
        std::unique_ptr<re2::RE2> re;
    };
    struct PathRule {
        std::string entry;                // as configured
        std::vector<std::string> forms;   // lexical and with symlinks resolved
        bool glob = false;
    };
    std::vector<CommandRule> commands_;
    std::vector<PathRule> paths_;
};

// The forms of `path` (relative to `cwd`) a deny_paths rule is matched against: lexically normalised
// (`..` taken out), then with the symlinks of its existing part resolved.
std::vector<std::string> path_forms(const std::string &path, const std::string &cwd);

}  // namespace actionhost::host
