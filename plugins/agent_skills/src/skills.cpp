#include "skills.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/utf8.hpp"
#include "documents.hpp"
#include "file_access.hpp"
#include "py_text.hpp"
#include "text_codec.hpp"

namespace actionhost::agent_skills {

namespace {

constexpr long long kWindow = 100;

struct SkillError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string error_line(const std::string &msg) { return "ERROR: " + msg + "\n"; }

// os.path.abspath relative to the caller's cwd: joined, then normpath (".." collapsed lexically).
std::string abspath(const std::string &cwd, const std::string &p) {
    const std::string joined = is_absolute(p) ? p : cwd + "/" + p;
    std::vector<std::string> parts;
    size_t i = 0;
    while (i <= joined.size()) {
        size_t j = joined.find('/', i);
        if (j == std::string::npos) j = joined.size();
        const std::string part = joined.substr(i, j - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        i = j + 1;
    }
    std::string out;
    for (const auto &part : parts) out += "/" + part;
    return out.empty() ? "/" : out;
}

std::string resolve(const SkillContext &ctx, const std::string &p) { return is_absolute(p) ? p : ctx.cwd + "/" + p; }

bool is_file(const std::string &p) { return stat_path(p).kind == FileKind::regular; }
bool is_dir(const std::string &p) { return stat_path(p).kind == FileKind::directory; }

std::string read_text_file(const std::string &p) {
    auto bytes = read_bytes(p, 0);
    if (!bytes) throw SkillError(bytes.error().message);
    auto text = decode_text(bytes.value());
    if (!text) throw SkillError(text.error().message);
    return std::move(text.value().text);
}

long long total_lines_of(const std::string &text) { return std::max<long long>(1, static_cast<long long>(count_lines(text))); }

// file_ops._print_window(..., return_str=True)
std::string print_window(SkillState &st, const std::string &text, long long targeted, long long window, bool ignore_window) {
    std::string content = text;
    if (content.empty() || content.back() != '\n') content += '\n';
    const std::vector<std::string_view> lines = lines_keepends(content);
    const long long total = static_cast<long long>(lines.size());
    st.current_line = std::clamp(targeted, 1LL, total);
    const long long half = std::max(1LL, window / 2);
    long long start, end;
    if (ignore_window) {
        start = std::max(1LL, st.current_line);
        end = std::min(total, st.current_line + window);
    } else {
        start = std::max(1LL, st.current_line - half);
        end = std::min(total, st.current_line + half);
    }
    if (start == 1) end = std::min(total, start + window - 1);
    if (end == total) start = std::max(1LL, end - window + 1);
    std::string out = start > 1 ? "(" + std::to_string(start - 1) + " more lines above)\n" : "(this is the beginning of the file)\n";
    for (long long i = start; i <= end; ++i) {
        out += std::to_string(i) + "|";
        out.append(lines[static_cast<size_t>(i - 1)]);
        if (out.back() != '\n') out += '\n';
    }
    out += end < total ? "(" + std::to_string(total - end) + " more lines below)\n" : "(this is the end of the file)\n";
    return std::string(py_rstrip(out));
}

std::string header(const std::string &file, long long total) {
    return "[File: " + file + " (" + std::to_string(total) + " lines total)]\n";
}

// Keyword/positional argument access with Python-like defaults.
class Args {
  public:
    Args(const nlohmann::json &args, std::vector<std::string> names) : args_(args), names_(std::move(names)) {
        if (!args_.is_null() && !args_.is_object() && !args_.is_array())
            throw SkillError("arguments must be a JSON object of keyword arguments or an array of positional ones");
        if (args_.is_array() && args_.size() > names_.size())
            throw SkillError("takes at most " + std::to_string(names_.size()) + " arguments (" + std::to_string(args_.size()) + " given)");
        if (args_.is_object())
            for (auto it = args_.begin(); it != args_.end(); ++it)
                if (std::find(names_.begin(), names_.end(), it.key()) == names_.end())
                    throw SkillError("got an unexpected keyword argument '" + it.key() + "'");
    }
    const nlohmann::json *get(const std::string &name) const {
        if (args_.is_object()) {
            auto it = args_.find(name);
            return it == args_.end() ? nullptr : &*it;
        }
        if (args_.is_array()) {
            const auto pos = static_cast<size_t>(std::find(names_.begin(), names_.end(), name) - names_.begin());
            return pos < args_.size() ? &args_[pos] : nullptr;
        }
        return nullptr;
    }
    std::string str(const std::string &name, const std::optional<std::string> &def = std::nullopt) const {
        const nlohmann::json *v = get(name);
        if (v == nullptr || v->is_null()) {
            if (def) return *def;
            throw SkillError("missing required argument '" + name + "'");
        }
        if (!v->is_string()) throw SkillError("argument '" + name + "' must be a string");
        return v->get<std::string>();
    }
    bool present(const std::string &name) const {
        const nlohmann::json *v = get(name);
        return v != nullptr && !v->is_null();
    }

  private:
    const nlohmann::json &args_;
    std::vector<std::string> names_;
};

// os.walk(top) (top-down, symlinked directories listed but not entered), names sorted for a stable order.
void walk(const std::string &root, const std::function<void(const std::string &root, const std::vector<std::string> &files)> &visit,
          int depth = 0) {
    if (depth > 64) return;
    DIR *d = ::opendir(root.c_str());
    if (d == nullptr) return;
    std::vector<std::string> files, dirs;
    while (dirent *e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        const std::string full = path_join(root, name);
        const FileKind k = stat_path(full).kind;
        if (k == FileKind::directory) {
            if (e->d_type != DT_LNK) dirs.push_back(name);
        } else {
            files.push_back(name);
        }
    }
    ::closedir(d);
    std::sort(files.begin(), files.end());
    std::sort(dirs.begin(), dirs.end());
    visit(root, files);
    for (const auto &dname : dirs) walk(path_join(root, dname), visit, depth + 1);
}

std::string open_file(SkillState &st, const SkillContext &ctx, const Args &a) {
    const std::string path = a.str("path");
    const nlohmann::json *ln = a.get("line_number");
    const nlohmann::json *cl = a.get("context_lines");
    if (!is_file(resolve(ctx, path))) return error_line("File " + path + " not found.");
    st.current_file = abspath(ctx.cwd, path);
    const std::string text = read_text_file(st.current_file);
    const long long total = total_lines_of(text);
    long long line_number = 1;
    if (ln != nullptr) {
        if (!ln->is_number_integer()) return error_line("Line number must be between 1 and " + std::to_string(total));
        line_number = ln->get<long long>();
    }
    if (line_number < 1 || line_number > total) return error_line("Line number must be between 1 and " + std::to_string(total));
    st.current_line = line_number;
    long long context = kWindow;
    if (cl != nullptr && cl->is_number_integer() && cl->get<long long>() >= 1) context = cl->get<long long>();
    std::string out = header(st.current_file, total) + print_window(st, text, st.current_line, std::clamp(context, 1LL, 100LL), false);
    if (py_strip(out).ends_with("more lines below)")) out += "\n[Use `scroll_down` to view the next 100 lines of the file!]";
    return out + "\n";
}

std::string goto_line(SkillState &st, const Args &a) {
    if (st.current_file.empty() || !is_file(st.current_file)) return error_line("No file open. Use the open_file function first.");
    const std::string text = read_text_file(st.current_file);
    const long long total = total_lines_of(text);
    const nlohmann::json *ln = a.get("line_number");
    if (ln == nullptr || !ln->is_number_integer() || ln->get<long long>() < 1 || ln->get<long long>() > total)
        return error_line("Line number must be between 1 and " + std::to_string(total) + ".");
    st.current_line = std::clamp(ln->get<long long>(), 1LL, total);
    return header(st.current_file, total) + print_window(st, text, st.current_line, kWindow, false) + "\n";
}

std::string scroll(SkillState &st, long long delta) {
    if (st.current_file.empty() || !is_file(st.current_file)) return error_line("No file open. Use the open_file function first.");
    const std::string text = read_text_file(st.current_file);
    const long long total = total_lines_of(text);
    st.current_line = std::clamp(st.current_line + delta, 1LL, total);
    return header(st.current_file, total) + print_window(st, text, st.current_line, kWindow, true) + "\n";
}

std::string search_dir(const SkillContext &ctx, const Args &a) {
    const std::string term = a.str("search_term");
    const std::string dir = a.str("dir_path", std::string("./"));
    const std::string base = resolve(ctx, dir);
    if (!is_dir(base)) return error_line("Directory " + dir + " not found");
    struct Hit {
        std::string file;
        size_t line;
        std::string text;
    };
    std::vector<Hit> hits;
    std::set<std::string> files_hit;
    // Walk the resolved directory but print paths as os.walk(dir_path) would (rooted at dir_path).
    walk(base, [&](const std::string &root, const std::vector<std::string> &files) {
        const std::string shown_root = dir + root.substr(base.size());
        for (const auto &f : files) {
            if (f.front() == '.') continue;
            auto bytes = read_bytes(path_join(root, f), 64 * 1024 * 1024);
            if (!bytes) continue;
            const std::string shown = path_join(shown_root, f);
            size_t n = 0;
            for (auto line : lines_keepends(bytes.value())) {
                ++n;
                if (line.find(term) == std::string_view::npos) continue;
                hits.push_back({shown, n, common::sanitize_utf8(py_strip(line))});
                files_hit.insert(shown);
            }
        }
    });
    if (hits.empty()) return "No matches found for \"" + term + "\" in " + dir + "\n";
    if (files_hit.size() > 100)
        return "More than " + std::to_string(files_hit.size()) + " files matched for \"" + term + "\" in " + dir + ". Please narrow your search.\n";
    std::string out = "[Found " + std::to_string(hits.size()) + " matches for \"" + term + "\" in " + dir + "]\n";
    for (const auto &h : hits) out += h.file + " (Line " + std::to_string(h.line) + "): " + h.text + "\n";
    return out + "[End of matches for \"" + term + "\" in " + dir + "]\n";
}

std::string search_file(SkillState &st, const SkillContext &ctx, const Args &a) {
    const std::string term = a.str("search_term");
    std::string file = a.present("file_path") ? a.str("file_path") : st.current_file;
    if (file.empty()) return error_line("No file specified or open. Use the open_file function first.");
    if (!is_file(resolve(ctx, file))) return error_line("File " + file + " not found.");
    const std::string text = read_text_file(resolve(ctx, file));
    std::vector<std::pair<size_t, std::string>> hits;
    size_t n = 0;
    for (auto line : lines_keepends(text)) {
        ++n;
        if (line.find(term) != std::string_view::npos) hits.emplace_back(n, std::string(py_strip(line)));
    }
    if (hits.empty()) return "[No matches found for \"" + term + "\" in " + file + "]\n";
    std::string out = "[Found " + std::to_string(hits.size()) + " matches for \"" + term + "\" in " + file + "]\n";
    for (const auto &h : hits) out += "Line " + std::to_string(h.first) + ": " + h.second + "\n";
    return out + "[End of matches for \"" + term + "\" in " + file + "]\n";
}

std::string find_file(const SkillContext &ctx, const Args &a) {
    const std::string name = a.str("file_name");
    const std::string dir = a.str("dir_path", std::string("./"));
    const std::string base = resolve(ctx, dir);
    if (!is_dir(base)) return error_line("Directory " + dir + " not found");
    std::vector<std::string> matches;
    walk(base, [&](const std::string &root, const std::vector<std::string> &files) {
        const std::string shown_root = dir + root.substr(base.size());
        for (const auto &f : files)
            if (f.find(name) != std::string::npos) matches.push_back(path_join(shown_root, f));
    });
    if (matches.empty()) return "[No matches found for \"" + name + "\" in " + dir + "]\n";
    std::string out = "[Found " + std::to_string(matches.size()) + " matches for \"" + name + "\" in " + dir + "]\n";
    for (const auto &m : matches) out += m + "\n";
    return out + "[End of matches for \"" + name + "\" in " + dir + "]\n";
}

std::string document(const SkillContext &ctx, const Args &a, std::string (*reader)(const std::string &)) {
    const std::string path = a.str("file_path");
    const std::string full = resolve(ctx, path);
    const FileInfo info = stat_path(full);
    if (info.kind != FileKind::regular) return error_line("File " + path + " not found.");
    // The readers print the path as given; they read the resolved one.
    std::string out = reader(full);
    if (full != path) {
        const size_t at = out.find(full);
        if (at != std::string::npos && at < 40) out.replace(at, full.size(), path);
    }
    return out;
}

std::string hex_token() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static const char *digits = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 2; ++i) {
        uint64_t v = rng();
        for (int k = 0; k < 16; ++k, v >>= 4) out += digits[v & 15];
    }
    return out;
}

std::string file_editor(const SkillContext &ctx, const Args &a) {
    if (ctx.editor == nullptr) throw SkillError("file_editor is not available here");
    EditorRequest req;
    req.command = a.str("command");
    req.path = a.str("path");
    if (a.present("file_text")) req.file_text = a.str("file_text");
    if (a.present("old_str")) req.old_str = a.str("old_str");
    if (a.present("new_str")) req.new_str = a.str("new_str");
    if (a.present("view_range")) req.view_range = *a.get("view_range");
    if (a.present("insert_line")) {
        const nlohmann::json &v = *a.get("insert_line");
        if (v.is_number_integer()) req.insert_line = v.get<long long>();
        else throw SkillError("Invalid insert_line value: '" + py_str(v) + "'. Expected an integer.");
    }
    return file_editor_block(ctx.editor->run(req));
}

}  // namespace

std::string file_editor_block(const EditorResult &r) {
    nlohmann::ordered_json j;
    j["output"] = r.output;
    j["error"] = r.ok() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.error);
    j["path"] = r.path;
    j["prev_exist"] = r.prev_exist;
    j["old_content"] = r.old_content ? nlohmann::ordered_json(*r.old_content) : nlohmann::ordered_json(nullptr);
    j["new_content"] = r.new_content ? nlohmann::ordered_json(*r.new_content) : nlohmann::ordered_json(nullptr);
    j["formatted_output_and_error"] = r.ok() ? r.output : "ERROR:\n" + r.error;
    const std::string marker = "oh_aci_output_" + hex_token();
    return "<" + marker + ">\n" + actionhost::common::dump_ordered_json(j) + "\n</" + marker + ">\n";
}

const std::vector<std::string> &skill_names() {
    static const std::vector<std::string> names = {"open_file",  "goto_line",   "scroll_down", "scroll_up",
                                                   "search_dir", "search_file", "find_file",   "parse_pdf",
                                                   "parse_docx", "parse_pptx",  "parse_xlsx",  "parse_latex",
                                                   "file_editor"};
    return names;
}

std::string run_skill(SkillState &st, const SkillContext &ctx, const std::string &name, const nlohmann::json &args) {
    try {
        if (name == "open_file") return open_file(st, ctx, Args(args, {"path", "line_number", "context_lines"}));
        if (name == "goto_line") return goto_line(st, Args(args, {"line_number"}));
        if (name == "scroll_down" || name == "scroll_up") {
            const Args no_args(args, {});  // refuses stray arguments
            return scroll(st, name == "scroll_down" ? kWindow : -kWindow);
        }
        if (name == "search_dir") return search_dir(ctx, Args(args, {"search_term", "dir_path"}));
        if (name == "search_file") return search_file(st, ctx, Args(args, {"search_term", "file_path"}));
        if (name == "find_file") return find_file(ctx, Args(args, {"file_name", "dir_path"}));
        if (name == "parse_pdf") return document(ctx, Args(args, {"file_path"}), &parse_pdf);
        if (name == "parse_docx") return document(ctx, Args(args, {"file_path"}), &parse_docx);
        if (name == "parse_pptx") return document(ctx, Args(args, {"file_path"}), &parse_pptx);
        if (name == "parse_xlsx") return document(ctx, Args(args, {"file_path"}), &parse_xlsx);
        if (name == "parse_latex") return document(ctx, Args(args, {"file_path"}), &parse_latex);
        if (name == "file_editor")
            return file_editor(ctx, Args(args, {"command", "path", "file_text", "view_range", "old_str", "new_str",
                                                "insert_line", "enable_linting"}));
        std::string known;
        for (const auto &n : skill_names()) known += (known.empty() ? "" : ", ") + n;
        return error_line("Unknown skill '" + name + "'. Available skills: " + known);
    } catch (const std::exception &e) {
        return error_line(name + ": " + e.what());
    }
}

}  // namespace actionhost::agent_skills
