#include "editor.hpp"

#include <actionhost/common/python_repr.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <vector>

#include "documents.hpp"
#include "py_text.hpp"
#include "text_codec.hpp"

namespace actionhost::agent_skills {

namespace {

constexpr size_t kMaxResponseChars = 16000;
constexpr long long kSnippetContext = 4;
const char *const kTextClipNotice =
    "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You should "
    "retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what "
    "you are looking for.</NOTE>";
const char *const kDirClipNotice =
    "<response clipped><NOTE>Due to the max output limit, only part of this directory has been shown to you. You "
    "should use `ls -la` instead to view large directories incrementally.</NOTE>";
const char *const kMarkdownClipNotice =
    "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you.</NOTE>";

// A failure of the command; its text becomes EditorResult::error.
struct ToolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

ToolError invalid_param(const std::string &param, const std::string &value, const std::string &hint) {
    return ToolError("Invalid `" + param + "` parameter: " + value + ". " + hint);
}
ToolError missing_param(const std::string &command, const std::string &param) {
    return ToolError("Parameter `" + param + "` is required for command: " + command + ".");
}
ToolError validation_failed(const std::string &p, const std::string &reason) {
    return ToolError("File validation failed for " + p + ": " + reason);
}

std::string maybe_truncate(std::string_view content, const char *notice) {
    const std::string_view head = py_prefix(content, kMaxResponseChars);
    if (head.size() == content.size()) return std::string(content);
    return std::string(head) + notice;
}

// Lines [first, last] (1-based, inclusive) of `text`, each with its '\n'.
std::string line_range(std::string_view text, long long first, long long last) {
    std::string out;
    long long n = 0;
    size_t i = 0;
    while (i < text.size()) {
        size_t j = text.find('\n', i);
        j = j == std::string_view::npos ? text.size() : j + 1;
        ++n;
        if (n > last) break;
        if (n >= first) out.append(text.substr(i, j - i));
        i = j;
    }
    return out;
}

// `find -L <p> -maxdepth 2` without hidden entries, sorted as `sort` does in the C locale.
void list_dir(const std::string &dir, int depth, std::vector<std::string> &out) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, std::filesystem::directory_options::skip_permission_denied, ec);
    if (ec) return;
    for (const auto &entry : it) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.front() == '.') continue;
        const std::string child = (dir == "/" ? "" : dir) + "/" + name;
        out.push_back(child);
        std::error_code ec2;
        if (depth < 2 && std::filesystem::is_directory(child, ec2)) list_dir(child, depth + 1, out);
    }
}

size_t count_hidden(const std::string &dir) {
    size_t n = 0;
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, std::filesystem::directory_options::skip_permission_denied, ec);
    if (ec) return 0;
    for (const auto &entry : it) {
        const std::string name = entry.path().filename().string();
        n += !name.empty() && name.front() == '.';
    }
    return n;
}

}  // namespace

struct Editor::Text {
    std::string text;
    std::string encoding = "utf-8";
    bool crlf = false;
};

bool is_supported_binary_suffix(const std::string &s) {
    static const std::set<std::string> kSupported = {".docx", ".xlsx", ".pptx", ".pdf", ".mp3", ".wav", ".m4a", ".flac"};
    return kSupported.count(s) != 0;
}

std::string numbered_output(std::string_view content, const std::string &description, long long start_line) {
    const std::string clipped = maybe_truncate(content, kTextClipNotice);
    std::string out = "Here's the result of running `cat -n` on " + description + ":\n";
    out.reserve(out.size() + clipped.size() + clipped.size() / 8 + 16);
    long long n = start_line;
    char num[32];
    size_t i = 0;
    for (;;) {
        const size_t j = clipped.find('\n', i);
        const int len = std::snprintf(num, sizeof num, "%6lld\t", n++);
        out.append(num, static_cast<size_t>(len));
        if (j == std::string::npos) {
            out.append(clipped, i, std::string::npos);
            break;
        }
        out.append(clipped, i, j - i);
        out += '\n';
        i = j + 1;
    }
    out += '\n';
    return out;
}

Editor::Editor(std::string workspace_root, PathPolicy policy, size_t max_file_bytes)
    : workspace_root_(std::move(workspace_root)), policy_(std::move(policy)), max_file_bytes_(max_file_bytes) {}

EditorResult Editor::run(const EditorRequest &req) {
    EditorResult result;
    const std::string p = py_path(req.path);
    result.path = p;
    try {
        // validate_path
        if (!is_absolute(p)) {
            std::string hint = "The path should be an absolute path, starting with `/`.";
            if (!workspace_root_.empty()) {
                const std::string suggested = py_path(workspace_root_ + "/" + p);
                if (stat_path(suggested).kind != FileKind::missing) hint += " Maybe you meant " + suggested + "?";
            }
            throw invalid_param("path", p, hint);
        }
        if (auto allowed = policy_.check(p); !allowed) throw invalid_param("path", p, allowed.error().message);
        const FileInfo info = stat_path(p);
        result.prev_exist = info.kind != FileKind::missing;
        if (req.command == "create" && info.kind != FileKind::missing)
            throw invalid_param("path", p, "File already exists at: " + p + ". Cannot overwrite files using command `create`.");
        if (req.command != "create" && info.kind == FileKind::missing)
            throw invalid_param("path", p, "The path " + p + " does not exist. Please provide a valid path.");
        if (info.kind == FileKind::other)
            throw invalid_param("path", p, "The path " + p + " is a " + info.other_kind +
                                               "; the editor only works on regular files and directories.");
        const std::string suffix = lower_ascii(path_suffix(p));
        if (req.command != "view") {
            if (info.kind == FileKind::directory)
                throw invalid_param("path", p, "The path " + p + " is a directory and only the `view` command can be used on directories.");
            if (is_supported_binary_suffix(suffix))
                throw invalid_param("path", p, "The path " + p + " points to a binary file (" + path_suffix(p) +
                                                   ") and only the `view` command can be used on supported binary files.");
        }
        if (req.command == "view") return result = [&] {
            EditorResult r = view(p, req.view_range);
            r.path = p;
            r.prev_exist = result.prev_exist;
            return r;
        }();
        EditorResult r;
        if (req.command == "create") {
            if (!req.file_text) throw missing_param("create", "file_text");
            r = create(p, *req.file_text);
        } else if (req.command == "str_replace") {
            if (!req.old_str) throw missing_param("str_replace", "old_str");
            if (req.new_str && *req.new_str == *req.old_str)
                throw invalid_param("new_str", *req.new_str,
                                    "No replacement was performed. `new_str` and `old_str` must be different.");
            r = str_replace(p, *req.old_str, req.new_str.value_or(""));
        } else if (req.command == "insert") {
            if (!req.insert_line) throw missing_param("insert", "insert_line");
            if (!req.new_str) throw missing_param("insert", "new_str");
            r = insert(p, *req.insert_line, *req.new_str);
        } else if (req.command == "undo_edit") {
            r = undo_edit(p);
        } else {
            throw ToolError("Unrecognized command " + req.command +
                            ". The allowed commands for the oh_editor tool are: view, create, str_replace, insert, undo_edit");
        }
        r.path = p;
        r.prev_exist = result.prev_exist;
        return r;
    } catch (const ToolError &e) {
        result.error = e.what();
        result.old_content.reset();
        result.new_content.reset();
        return result;
    } catch (const std::exception &e) {
        // Anything else (allocation, filesystem) still answers with a readable error.
        result.error = std::string("Ran into ") + e.what() + " while trying to run " + req.command + " on " + p;
        return result;
    }
}

void Editor::validate_file(const std::string &p) {
    const FileInfo info = stat_path(p);
    if (info.kind != FileKind::regular) return;
    if (static_cast<size_t>(info.size) > max_file_bytes_) {
        char reason[200];
        std::snprintf(reason, sizeof reason, "File is too large (%.1fMB). Maximum allowed size is %zuMB.",
                      static_cast<double>(info.size) / 1024.0 / 1024.0, max_file_bytes_ / 1024 / 1024);
        throw validation_failed(p, reason);
    }
    if (is_supported_binary_suffix(lower_ascii(path_suffix(p)))) return;
    auto head = read_bytes(p, 1024);
    if (!head) throw ToolError("Ran into " + head.error().message + " while trying to read " + p);
    if (looks_binary(head.value()))
        throw validation_failed(p, "File appears to be binary and this file type cannot be read or edited by this tool.");
}

Editor::Text Editor::read_text(const std::string &p) {
    auto bytes = read_bytes(p, 0);
    if (!bytes) throw ToolError("Ran into " + bytes.error().message + " while trying to read " + p);
    auto decoded = decode_text(bytes.value());
    if (!decoded) throw ToolError("Ran into " + decoded.error().message + " while trying to read " + p);
    DecodedText &d = decoded.value();
    return Text{std::move(d.text), std::move(d.encoding), d.crlf};
}

void Editor::write_text(const std::string &p, const std::string &text, const std::string &encoding, bool crlf) {
    auto bytes = encode_text(text, encoding, crlf);
    if (!bytes) throw ToolError("Ran into " + bytes.error().message + " while trying to write to " + p);
    if (auto written = write_atomic(p, bytes.value(), durable_); !written)
        throw ToolError("Ran into " + written.error().message + " while trying to write to " + p);
}

EditorResult Editor::view(const std::string &p, const nlohmann::json &view_range) {
    EditorResult r;
    const bool has_range = !(view_range.is_null() || (view_range.is_array() && view_range.empty()) ||
                             (view_range.is_boolean() && !view_range.get<bool>()) ||
                             (view_range.is_number() && view_range.get<double>() == 0) ||
                             (view_range.is_string() && view_range.get<std::string>().empty()));
    if (stat_path(p).kind == FileKind::directory) {
        if (has_range)
            throw invalid_param("view_range", py_str(view_range),
                                "The `view_range` parameter is not allowed when `path` points to a directory.");
        std::vector<std::string> entries;
        list_dir(p, 1, entries);
        entries.push_back(p);
        std::sort(entries.begin(), entries.end());
        std::string listing;
        for (const auto &e : entries) listing += e + "\n";
        listing = maybe_truncate(listing, kDirClipNotice);
        std::string out = "Here's the files and directories up to 2 levels deep in " + p + ", excluding hidden items:\n";
        bool first = true;
        for (auto line : split_lines(py_strip(listing))) {
            if (!first) out += '\n';
            first = false;
            out.append(line);
            std::error_code ec;
            if (std::filesystem::is_directory(std::string(line), ec)) out += '/';
        }
        const size_t hidden = count_hidden(p);
        if (hidden > 0)
            out += "\n\n" + std::to_string(hidden) + " hidden files/directories in this directory are excluded. You can use 'ls -la " + p + "' to see them.";
        r.output = out;
        return r;
    }
    validate_file(p);
    const std::string suffix = lower_ascii(path_suffix(p));
    if (is_supported_binary_suffix(suffix)) {
        std::string md;
        try {
            md = document_markdown(p, suffix);
        } catch (const std::exception &e) {
            throw ToolError(std::string("Error in converting file to Markdown: ") + e.what() + ". Please use Python code to read " + p);
        }
        r.output = "Here's the content of the file " + p + " displayed in Markdown format:\n" + maybe_truncate(md, kMarkdownClipNotice) + "\n";
        return r;
    }
    const Text t = read_text(p);
    if (!has_range) {
        r.output = numbered_output(t.text, p, 1);
        return r;
    }
    if (!view_range.is_array() || view_range.size() != 2 || !view_range[0].is_number_integer() ||
        !view_range[1].is_number_integer())
        throw invalid_param("view_range", py_str(view_range), "It should be a list of two integers.");
    const long long num_lines = static_cast<long long>(count_lines(t.text));
    const long long start = view_range[0].get<long long>();
    long long end = view_range[1].get<long long>();
    if (start < 1 || start > num_lines)
        throw invalid_param("view_range", py_str(view_range),
                            "Its first element `" + std::to_string(start) +
                                "` should be within the range of lines of the file: [1, " + std::to_string(num_lines) + "].");
    std::string note;
    if (end == -1) {
        end = num_lines;
    } else if (end > num_lines) {
        note = "NOTE: We only show up to " + std::to_string(num_lines) + " since there're only " + std::to_string(num_lines) +
               " lines in this file.\n";
        end = num_lines;
    }
    if (end < start)
        throw invalid_param("view_range", py_str(view_range),
                            "Its second element `" + std::to_string(end) + "` should be greater than or equal to the first element `" +
                                std::to_string(start) + "`.");
    std::string lines = line_range(t.text, start, end);
    if (!lines.empty() && lines.back() == '\n') lines.pop_back();  // '\n'.join(splitlines())
    r.output = note + numbered_output(lines, p, start);
    return r;
}

EditorResult Editor::create(const std::string &p, const std::string &file_text) {
    write_text(p, file_text, "utf-8", false);
    history_.push(p, file_text);
    EditorResult r;
    r.output = "File created successfully at: " + p;
    r.new_content = file_text;
    return r;
}

EditorResult Editor::str_replace(const std::string &p, std::string old_str, std::string new_str) {
    validate_file(p);
    const Text t = read_text(p);
    auto find_all = [&](const std::string &needle) {
        std::vector<size_t> hits;
        if (needle.empty()) {  // re.finditer('') matches at every position, end included
            for (size_t i = 0; i <= t.text.size(); ++i)
                if ((static_cast<unsigned char>(t.text[i < t.text.size() ? i : 0]) & 0xC0) != 0x80 || i == t.text.size())
                    hits.push_back(i);
            return hits;
        }
        for (size_t at = t.text.find(needle); at != std::string::npos; at = t.text.find(needle, at + needle.size()))
            hits.push_back(at);
        return hits;
    };
    std::vector<size_t> hits = find_all(old_str);
    if (hits.empty()) {
        old_str = std::string(py_strip(old_str));
        new_str = std::string(py_strip(new_str));
        hits = find_all(old_str);
        if (hits.empty())
            throw ToolError("No replacement was performed, old_str `" + old_str + "` did not appear verbatim in " + p + ".");
    }
    auto line_of = [&](size_t at) {
        return 1 + static_cast<long long>(std::count(t.text.begin(), t.text.begin() + static_cast<long>(at), '\n'));
    };
    if (hits.size() > 1) {
        std::vector<long long> lines;
        long long line = 1;
        size_t pos = 0;
        for (size_t at : hits) {  // hits ascend: count newlines incrementally
            line += std::count(t.text.begin() + static_cast<long>(pos), t.text.begin() + static_cast<long>(at), '\n');
            pos = at;
            if (lines.empty() || lines.back() != line) lines.push_back(line);
        }
        throw ToolError("No replacement was performed. Multiple occurrences of old_str `" + old_str + "` in lines " +
                        common::python_repr(nlohmann::json(lines)) + ". Please ensure it is unique.");
    }
    const size_t at = hits.front();
    const long long line = line_of(at);
    std::string updated;
    updated.reserve(t.text.size() + new_str.size());
    updated.append(t.text, 0, at);
    updated += new_str;
    updated.append(t.text, at + old_str.size(), std::string::npos);
    write_text(p, updated, t.encoding, t.crlf);
    history_.push(p, t.text);
    const long long start = std::max(0LL, line - kSnippetContext);
    const long long end = line + kSnippetContext + static_cast<long long>(std::count(new_str.begin(), new_str.end(), '\n'));
    EditorResult r;
    r.output = "The file " + p + " has been edited. " + numbered_output(line_range(updated, start + 1, end), "a snippet of " + p, start + 1) +
               "Review the changes and make sure they are as expected. Edit the file again if necessary.";
    r.old_content = t.text;
    r.new_content = std::move(updated);
    return r;
}

EditorResult Editor::insert(const std::string &p, long long insert_line, const std::string &new_str) {
    validate_file(p);
    const Text t = read_text(p);
    const long long num_lines = static_cast<long long>(count_lines(t.text));
    if (insert_line < 0 || insert_line > num_lines)
        throw invalid_param("insert_line", std::to_string(insert_line),
                            "It should be within the range of allowed values: [0, " + std::to_string(num_lines) + "]");
    const std::vector<std::string_view> new_lines = split_lines(new_str);
    std::string before = line_range(t.text, 1, insert_line);
    // Unlike the peer, never glue the inserted text onto an unterminated last line.
    if (!before.empty() && before.back() != '\n') before += '\n';
    std::string updated = before;
    for (auto l : new_lines) {
        updated.append(l);
        updated += '\n';
    }
    updated += line_range(t.text, insert_line + 1, num_lines);
    write_text(p, updated, t.encoding, t.crlf);
    history_.push(p, t.text);
    const long long n_new = static_cast<long long>(new_lines.size());
    const long long start = std::max(0LL, insert_line - kSnippetContext);
    const long long end = std::min(num_lines + n_new, insert_line + kSnippetContext + n_new);
    EditorResult r;
    r.output = "The file " + p + " has been edited. " +
               numbered_output(line_range(updated, start + 1, end), "a snippet of the edited file",
                               std::max(1LL, insert_line - kSnippetContext + 1)) +
               "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.";
    r.old_content = t.text;
    r.new_content = std::move(updated);
    return r;
}

EditorResult Editor::undo_edit(const std::string &p) {
    const Text current = read_text(p);
    auto previous = history_.pop(p);
    if (!previous) throw ToolError("No edit history found for " + p + ".");
    write_text(p, *previous, current.encoding, current.crlf);
    EditorResult r;
    r.output = "Last edit to " + p + " undone successfully. " + numbered_output(*previous, p, 1);
    r.old_content = current.text;
    r.new_content = std::move(*previous);
    return r;
}

}  // namespace actionhost::agent_skills
