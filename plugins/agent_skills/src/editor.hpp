// OpenHands' file editor (openhands-aci OHEditor, the str_replace_editor tool) in C++: commands view,
// create, str_replace, insert, undo_edit with openhands-aci 0.3.2's exact message texts. One Editor serves
// the whole host (as OpenHands has one editor instance): its undo history is shared; it is thread-safe
// except that concurrent edits of the *same* file race as they would in any editor.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "file_access.hpp"
#include "undo_history.hpp"

namespace actionhost::agent_skills {

struct EditorRequest {
    std::string command;
    std::string path;
    std::optional<std::string> file_text;
    std::optional<std::string> old_str;
    std::optional<std::string> new_str;
    std::optional<long long> insert_line;
    nlohmann::json view_range;  // null when absent
};

struct EditorResult {
    std::string output;  // success text
    std::string error;   // non-empty on failure (rendered by callers as "ERROR:\n<error>")
    std::string path;    // str(Path(path))
    bool prev_exist = false;                // the path existed before the command
    std::optional<std::string> old_content; // file text before / after (what the diff is made of)
    std::optional<std::string> new_content;
    bool ok() const { return error.empty(); }
};

class Editor {
  public:
    // `workspace_root`: used for the "Maybe you meant <root>/<p>?" hint. `policy`: allowed roots.
    Editor(std::string workspace_root, PathPolicy policy, size_t max_file_bytes = 10 * 1024 * 1024);
    // Whether writes fsync before renaming (default off; ACTIONHOST_EDITOR_FSYNC=1 turns it on).
    void set_durable_writes(bool durable) { durable_ = durable; }
    EditorResult run(const EditorRequest &request);

  private:
    struct Text;
    EditorResult view(const std::string &p, const nlohmann::json &view_range);
    EditorResult create(const std::string &p, const std::string &file_text);
    EditorResult str_replace(const std::string &p, std::string old_str, std::string new_str);
    EditorResult insert(const std::string &p, long long insert_line, const std::string &new_str);
    EditorResult undo_edit(const std::string &p);
    Text read_text(const std::string &p);
    void write_text(const std::string &p, const std::string &text, const std::string &encoding, bool crlf);
    void validate_file(const std::string &p);

    std::string workspace_root_;
    PathPolicy policy_;
    size_t max_file_bytes_;
    bool durable_ = false;
    UndoHistory history_;
};

// "Here's the result of running `cat -n` on <desc>:\n" + numbered lines + "\n" (16000-char clip).
std::string numbered_output(std::string_view content, const std::string &description, long long start_line);

bool is_supported_binary_suffix(const std::string &lower_suffix);

}  // namespace actionhost::agent_skills
