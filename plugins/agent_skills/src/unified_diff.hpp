// The `diff` of an edit observation: Python's difflib.unified_diff(old.split('\n'), new.split('\n'),
// fromfile=path, tofile=path, n=0) with every line right-stripped and joined by '\n' — the same
// SequenceMatcher (longest matching blocks, autojunk of popular lines in inputs of 200+ lines), so the
// hunks are the ones OpenHands prints.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::agent_skills {

std::string unified_diff_0(std::string_view old_text, std::string_view new_text, const std::string &path);

}  // namespace actionhost::agent_skills
