// The `read` and `write` actions, served by the host core (OpenHands' FileReadAction and
// FileWriteAction), and their declarations (a plugin may take `read` for some arguments: a declaration
// with "when", as the editor does for impl_source "oh_aci").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <actionhost/modules/action_schema.hpp>

namespace actionhost::host {

struct FileActionContext {
    std::string cwd;  // the session shell's current directory: relative paths resolve against it
    int user_id = 1000;  // owner of new files when the host runs as root
};

// The declarations of the host's own actions, in the form a manifest uses.
const std::vector<modules::ActionSpec> &host_action_specs();

// `args` are the normalised arguments of the action. Returns the observation.
nlohmann::json read_action(const nlohmann::json &args, const FileActionContext &ctx);
nlohmann::json write_action(const nlohmann::json &args, const FileActionContext &ctx);

// Python's read_lines/insert_lines of OpenHands, over lines that keep their "\n".
std::vector<std::string> split_lines_keepends(const std::string &text);
std::vector<std::string> select_lines(const std::vector<std::string> &lines, long long start, long long end);
std::string splice_lines(const std::vector<std::string> &insert, const std::vector<std::string> &original,
                         long long start, long long end);

}  // namespace actionhost::host
