#include "policy/command_forms.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace actionhost::host {
namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

std::string trim(const std::string &s) {
    size_t b = 0, e = s.size();
    while (b < e && blank(s[b])) ++b;
    while (e > b && blank(s[e - 1])) --e;
    return s.substr(b, e - b);
}

// Quotes and backslashes dropped (a backslash-newline joins the lines, as the shell does), $IFS and
// ${IFS} read as a blank, blank runs folded.
std::string unquoted(const std::string &cmd) {
    std::string out;
    out.reserve(cmd.size());
    for (size_t i = 0; i < cmd.size(); ++i) {
        const char c = cmd[i];
        if (c == '\'' || c == '"') continue;
        if (c == '\\') {
            if (i + 1 < cmd.size() && cmd[i + 1] == '\n') ++i;
            continue;
        }
        if (cmd.compare(i, 6, "${IFS}") == 0) { i += 5; out += ' '; continue; }
        if (cmd.compare(i, 4, "$IFS") == 0) { i += 3; out += ' '; continue; }
        if (blank(c)) {
            if (!out.empty() && out.back() == ' ') continue;
            out += ' ';
            continue;
        }
        out += c;
    }
    return out;
}

std::string first_word(const std::string &s, size_t &end) {
    end = s.find(' ');
    if (end == std::string::npos) end = s.size();
    return s.substr(0, end);
}

bool assignment(const std::string &w) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    return std::all_of(w.begin(), w.begin() + static_cast<long>(eq),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Takes off what only runs the rest: `sudo rm` is `rm`, `bash -c rm` is `rm`.
std::string unwrapped(std::string s) {
    static const std::set<std::string> wrappers = {"sudo", "env", "exec", "nohup", "time", "command", "eval",
                                                   "nice", "builtin", "doas", "xargs", "timeout", "stdbuf"};
    static const std::set<std::string> shells = {"sh", "bash", "dash", "zsh", "ksh", "busybox", "/bin/sh", "/bin/bash",
                                                 "/usr/bin/bash", "/usr/bin/sh"};
    for (int guard = 0; guard < 32 && !s.empty(); ++guard) {
        size_t end = 0;
        const std::string w = first_word(s, end);
        std::string rest = end < s.size() ? s.substr(end + 1) : std::string();
        if (wrappers.count(w) || assignment(w)) {
            // Their own options (sudo -u root, timeout 5, nice -n 5) go too: options start with '-',
            // a number is timeout's duration.
            // The options that take the next word (sudo -u USER, nice -n 5, timeout -s KILL) take it too.
            static const std::set<std::string> with_value = {"-u", "-g", "-C", "-p", "-r", "-t", "-U", "-n", "-s", "-k", "-o"};
            while (!rest.empty() && (rest[0] == '-' || std::isdigit(static_cast<unsigned char>(rest[0])))) {
                const std::string opt = first_word(rest, end);
                rest = end < rest.size() ? rest.substr(end + 1) : std::string();
                if (with_value.count(opt) && !rest.empty()) {
                    first_word(rest, end);
                    rest = end < rest.size() ? rest.substr(end + 1) : std::string();
                }
            }
            s = rest;
            continue;
        }
        if (shells.count(w)) {
            size_t oend = 0;
            const std::string opt = first_word(rest, oend);
            if (opt.size() > 1 && opt[0] == '-' && opt.find('c') != std::string::npos) {
                s = oend < rest.size() ? rest.substr(oend + 1) : std::string();
                continue;
            }
        }
        break;
    }
    return s;
}

}  // namespace

std::vector<std::string> command_forms(const std::string &command) {
    std::vector<std::string> forms{command};
    const std::string flat = unquoted(command);
    if (flat != command) forms.push_back(flat);
    std::string current;
    auto flush = [&] {
        std::string seg = unwrapped(trim(current));
        current.clear();
        if (!seg.empty() && std::find(forms.begin(), forms.end(), seg) == forms.end()) forms.push_back(std::move(seg));
    };
    for (size_t i = 0; i < flat.size(); ++i) {
        const char c = flat[i];
        if (c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '{' || c == '}') {
            flush();
            continue;
        }
        if (c == '$' && i + 1 < flat.size() && flat[i + 1] == '(') {
            flush();
            ++i;
            continue;
        }
        current += c;
    }
    flush();
    return forms;
}

}  // namespace actionhost::host
