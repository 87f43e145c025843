// The few Python text behaviours the OpenHands editor's messages depend on, so ours match byte for
// byte: str(value) of JSON values as Python would print them, code-point lengths and cuts,
// str.strip(), and how pathlib.Path renders a path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace actionhost::agent_skills {

// str(v) for a value that came from JSON: strings as-is at top level, else Python's repr
// (common::python_repr: "[1, 'a', None, True]", null → "None", booleans → "True"/"False").
std::string py_str(const nlohmann::json &v);

// Number of code points in UTF-8 text (Python's len(str)).
size_t py_len(std::string_view utf8);
// The first `n` code points of `utf8`.
std::string_view py_prefix(std::string_view utf8, size_t n);

// str.strip() / rstrip() with Python's ASCII whitespace set (space, \t \n \v \f \r, and \x1c-\x1f).
std::string_view py_strip(std::string_view s);
std::string_view py_rstrip(std::string_view s);

// str(pathlib.PurePosixPath(p)): duplicate slashes and "." parts dropped, no trailing slash, ".."
// kept, "" → ".".
std::string py_path(std::string_view p);
bool is_absolute(std::string_view p);
// Path.suffix: the last ".ext" of the final component (not for names starting with a lone dot).
std::string path_suffix(std::string_view p);
std::string path_basename(std::string_view p);
std::string path_dirname(std::string_view p);
std::string path_join(std::string_view a, std::string_view b);  // os.path.join
std::string lower_ascii(std::string_view s);

// Splits on '\n' exactly as str.split('\n') (n separators → n+1 pieces).
std::vector<std::string_view> split_lines(std::string_view s);
// Splits into lines keeping the '\n' (file iteration / splitlines(True) on LF-only text).
std::vector<std::string_view> lines_keepends(std::string_view s);
// Python's `for line in file` count: lines ending in '\n' plus a final unterminated one.
size_t count_lines(std::string_view s);

}  // namespace actionhost::agent_skills
