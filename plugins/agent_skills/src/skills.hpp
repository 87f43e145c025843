// OpenHands' agent skills (plugins/agent_skills/file_ops and file_reader) with their printed output:
// open_file, goto_line, scroll_down, scroll_up, search_dir, search_file, find_file, parse_pdf,
// parse_docx, parse_pptx, parse_latex (+ parse_xlsx, an addition), and file_editor. Each call returns
// exactly what the Python function prints (trailing newline included). The open file and window are
// a SkillState: one per host session, one per IPython kernel.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "editor.hpp"

namespace actionhost::agent_skills {

struct SkillState {
    std::string current_file;  // absolute; "" when none is open
    long long current_line = 1;
};

struct SkillContext {
    std::string cwd;          // relative paths resolve here (the shell's / kernel's cwd)
    Editor *editor = nullptr; // for file_editor
};

// Runs skill `name` with `args` (a JSON object of keyword arguments, or an array of positional ones).
// Unknown skills and bad arguments print "ERROR: <reason>".
std::string run_skill(SkillState &state, const SkillContext &ctx, const std::string &name, const nlohmann::json &args);

// The names run_skill accepts.
const std::vector<std::string> &skill_names();

// The kernel-side file_editor(...) print: "<oh_aci_output_<hex>>\n{json}\n</oh_aci_output_<hex>>\n".
std::string file_editor_block(const EditorResult &result);

}  // namespace actionhost::agent_skills
