// get_git_changes / get_git_diff (git_workspace.hpp). One static command per call computes everything
// in the sandbox with git alone (no Python there, unlike OpenHands' scripts) and prints each field as
// base64, so any path or content — spaces, newlines, non-UTF-8 bytes — comes back exactly.

#include <algorithm>
#include <actionhost/common/base64.hpp>
#include <sstream>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/git_workspace.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "actionhost/client/shell_quote.hpp"

namespace actionhost::client {

namespace {

// The reference OpenHands compares against: origin/<branch>, else the merge base with origin's default
// branch, else that branch, else the empty tree. origin's default branch is read from the local
// refs/remotes/origin/HEAD (OpenHands asks the remote with `git remote show origin`).
const char *kRefFunction =
    "ah_ref() { "
    "b=$(git rev-parse --abbrev-ref HEAD 2>/dev/null) && git rev-parse -q --verify \"origin/$b^{commit}\" 2>/dev/null && return 0; "
    "d=$(git symbolic-ref -q --short refs/remotes/origin/HEAD 2>/dev/null); "
    "if [ -n \"$d\" ]; then git merge-base HEAD \"$d\" 2>/dev/null && return 0; "
    "git rev-parse -q --verify \"$d^{commit}\" 2>/dev/null && return 0; fi; "
    "git rev-parse -q --verify 4b825dc642cb6eb9a060e54bf8d69288fbee4904 2>/dev/null; }; ";

std::string b64(const std::string &text) { return actionhost::common::base64_decode(text).value_or(""); }

// "X :<b64> :<b64> ..." → {"X", field...}
std::vector<std::string> fields_of(const std::string &line) {
    std::vector<std::string> out;
    std::istringstream words(line);
    std::string w;
    while (words >> w) out.push_back(out.empty() ? w : b64(w.substr(1)));
    return out;
}

std::vector<std::string> split_nul(const std::string &s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < s.size()) {
        size_t end = s.find('\0', start);
        if (end == std::string::npos) end = s.size();
        out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// `git diff --name-status -z` output as OpenHands reads it: R → D old + A new, C → A new, T → M.
void add_name_status(const std::string &z, const std::string &prefix, std::vector<GitChange> &out) {
    auto t = split_nul(z);
    for (size_t i = 0; i < t.size();) {
        const std::string &status = t[i];
        if (status.empty()) throw RuntimeError("unexpected_value_in_git_diff");
        char kind = status[0];
        if ((kind == 'R' || kind == 'C') && i + 2 < t.size()) {
            if (kind == 'R') out.push_back({"D", prefix + t[i + 1]});
            out.push_back({"A", prefix + t[i + 2]});
            i += 3;
            continue;
        }
        if (i + 1 >= t.size()) throw RuntimeError("unexpected_value_in_git_diff");
        std::string s(1, kind == 'T' ? 'M' : kind);
        if (s != "M" && s != "A" && s != "D" && s != "U") throw RuntimeError("unexpected_status_in_git_diff:" + status);
        out.push_back({s, prefix + t[i + 1]});
        i += 2;
    }
}

std::string lines_joined(const std::string &text) {
    // Python's '\n'.join(text.splitlines()) for the line breaks that matter: \r\n, \r and \n.
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r') {
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
            out += '\n';
        } else {
            out += text[i];
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

}  // namespace

std::vector<GitChange> git_changes(WireClient &wire, const std::string &cwd) {
    std::string cmd = std::string("set -o pipefail; ") + kRefFunction +
                      "ah_repo() { ( cd \"./$1\" 2>/dev/null || exit 0; ref=$(ah_ref) || exit 0; "
                      "s=$(git --no-pager diff --name-status -z \"$ref\" | base64 -w0) || { echo \"E :$(printf 'git diff failed in %s' \"$1\" | base64 -w0)\"; exit 0; }; "
                      "u=$(git --no-pager ls-files --others --exclude-standard -z | base64 -w0) || exit 0; "
                      "echo \"R :$(printf '%s' \"$1\" | base64 -w0) :$s :$u\" ); }; "
                      "ah_repo ''; for g in ./*/.git; do [ -e \"$g\" ] || continue; p=${g#./}; ah_repo \"${p%/.git}\"; done";
    ShellOptions opts;
    opts.cwd = cwd;
    ShellResult r = run_hidden(wire, cmd, opts);
    if (r.exit_code != 0) throw RuntimeError("Cannot list the git changes in " + cwd + ": " + r.output);
    std::vector<GitChange> root, nested;
    std::vector<std::string> nested_dirs;
    std::istringstream lines(r.output);
    std::string line;
    while (std::getline(lines, line)) {
        auto f = fields_of(line);
        if (f.empty()) continue;
        if (f[0] == "E" && f.size() >= 2) throw RuntimeError(f[1]);
        if (f[0] != "R" || f.size() != 4) continue;
        std::string prefix = f[1].empty() ? "" : f[1] + "/";
        auto &into = f[1].empty() ? root : nested;
        if (!f[1].empty()) nested_dirs.push_back(prefix);
        add_name_status(f[2], prefix, into);
        for (const auto &path : split_nul(f[3]))
            if (!path.empty()) into.push_back({"A", prefix + path});
    }
    // The workspace repository sees a nested repository as untracked "sub/": its own entry replaces that.
    std::vector<GitChange> out;
    for (auto &c : root) {
        bool inside = std::any_of(nested_dirs.begin(), nested_dirs.end(), [&](const std::string &d) { return c.path.rfind(d, 0) == 0; });
        if (!inside) out.push_back(std::move(c));
    }
    for (auto &c : nested) out.push_back(std::move(c));
    std::stable_sort(out.begin(), out.end(), [](const GitChange &a, const GitChange &b) { return a.path < b.path; });
    return out;
}

GitDiff git_diff(WireClient &wire, const std::string &path, const std::string &cwd) {
    std::string cmd = std::string("set -o pipefail; ") + kRefFunction + "f=" + bash_quote(path) +
                      "; if [ -f \"$f\" ] && [ \"$(stat -c %s -- \"$f\")\" -gt 1048576 ]; then echo \"E :$(printf file_to_large | base64 -w0)\"; exit 0; fi; "
                      "abs=$(realpath -m -- \"$f\") && dir=$(dirname -- \"$abs\") || exit 1; repo=; "
                      "for i in $(seq 1 4096); do if [ -d \"$dir/.git\" ]; then repo=$dir; break; fi; [ \"$dir\" = / ] && break; dir=$(dirname -- \"$dir\"); done; "
                      "if [ -z \"$repo\" ]; then echo \"E :$(printf no_repository | base64 -w0)\"; exit 0; fi; "
                      "cd \"$repo\" || exit 1; ref=$(ah_ref); rel=${abs#\"${repo%/}\"/}; "
                      "o=$(git --no-pager show \"$ref:$rel\" 2>/dev/null | base64 -w0) || o=; "
                      "m=; if [ -f \"$abs\" ]; then m=$(base64 -w0 < \"$abs\") || exit 1; fi; "
                      "echo \"D :$o :$m\"";
    ShellOptions opts;
    opts.cwd = cwd;
    ShellResult r = run_hidden(wire, cmd, opts);
    if (r.exit_code != 0) throw RuntimeError("error_in_git_diff: " + r.output);
    std::istringstream lines(r.output);
    std::string line;
    while (std::getline(lines, line)) {
        auto f = fields_of(line);
        if (f.empty()) continue;
        if (f[0] == "E" && f.size() >= 2) throw RuntimeError(f[1]);
        if (f[0] == "D" && f.size() == 3) return {lines_joined(f[1]), lines_joined(f[2])};
    }
    throw RuntimeError("error_in_git_diff: " + r.output);
}

}  // namespace actionhost::client
