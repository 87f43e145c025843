// Which files an action changes, as far as its arguments tell (the audit trail's "files", docs/security.md
// "The audit trail"): OpenHands' file actions name the one file they write —
//   write                            its `path`;
//   edit  create, str_replace, insert, undo_edit   its `path` (view changes nothing);
//   edit  without a command          its `path` (the LLM-based edit: `content` between `start` and `end`).
// A relative path is taken from the session's working directory, `.` and `..` resolved lexically (the
// trail records what was asked; links are the path policy's business, which runs after). What a `run`
// or `run_ipython` command changes is not known from its arguments and is not listed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace actionhost::host::audit {

// Thread: any. Never throws on a malformed argument: it lists nothing then.
std::vector<std::string> files_changed_by(const std::string &action, const nlohmann::json &args, const std::string &cwd);

}  // namespace actionhost::host::audit
