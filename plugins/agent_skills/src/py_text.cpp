#include "py_text.hpp"
#include <actionhost/common/python_repr.hpp>

namespace actionhost::agent_skills {

namespace {
bool is_py_space(unsigned char c) { return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f); }

}  // namespace

std::string py_str(const nlohmann::json &v) {
    if (v.is_string()) return v.get<std::string>();
    return common::python_repr(v);  // the one owner of Python's repr
}

size_t py_len(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string_view py_prefix(std::string_view s, size_t n) {
    size_t seen = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            if (seen == n) return s.substr(0, i);
            ++seen;
        }
    }
    return s;
}

std::string_view py_strip(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && is_py_space(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && is_py_space(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::string_view py_rstrip(std::string_view s) {
    size_t e = s.size();
    while (e > 0 && is_py_space(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(0, e);
}

std::string py_path(std::string_view p) {
    if (p.empty()) return ".";
    const bool abs = p.front() == '/';
    // POSIX keeps exactly two leading slashes; pathlib does too.
    const bool two = p.size() >= 2 && p[0] == '/' && p[1] == '/' && (p.size() == 2 || p[2] != '/');
    std::string out = two ? "//" : (abs ? "/" : "");
    size_t i = 0;
    bool wrote = false;
    while (i < p.size()) {
        size_t j = p.find('/', i);
        if (j == std::string_view::npos) j = p.size();
        std::string_view part = p.substr(i, j - i);
        if (!part.empty() && part != ".") {
            if (wrote) out += '/';
            out.append(part);
            wrote = true;
        }
        i = j + 1;
    }
    if (out.empty()) return ".";
    return out;
}

bool is_absolute(std::string_view p) { return !p.empty() && p.front() == '/'; }

std::string path_basename(std::string_view p) {
    const std::string n = py_path(p);
    const size_t s = n.rfind('/');
    return s == std::string::npos ? n : n.substr(s + 1);
}

std::string path_dirname(std::string_view p) {
    const std::string n = py_path(p);
    const size_t s = n.rfind('/');
    if (s == std::string::npos) return ".";
    if (s == 0) return "/";
    return n.substr(0, s);
}

std::string path_suffix(std::string_view p) {
    const std::string name = path_basename(p);
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return "";
    return name.substr(dot);
}

std::string path_join(std::string_view a, std::string_view b) {
    if (!b.empty() && b.front() == '/') return std::string(b);
    std::string out(a);
    if (!out.empty() && out.back() != '/') out += '/';
    out.append(b);
    return out;
}

std::string lower_ascii(std::string_view s) {
    std::string out(s);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::vector<std::string_view> split_lines(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    for (;;) {
        const size_t j = s.find('\n', i);
        if (j == std::string_view::npos) {
            out.push_back(s.substr(i));
            return out;
        }
        out.push_back(s.substr(i, j - i));
        i = j + 1;
    }
}

std::vector<std::string_view> lines_keepends(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        size_t j = s.find('\n', i);
        j = j == std::string_view::npos ? s.size() : j + 1;
        out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

size_t count_lines(std::string_view s) {
    size_t n = 0;
    for (char c : s) n += c == '\n';
    if (!s.empty() && s.back() != '\n') ++n;
    return n;
}

}  // namespace actionhost::agent_skills
