// Quoting for text the client library puts into sandbox commands: bash words and Python literals.
// Every value is carried byte for byte — quotes, newlines, `$`, backticks, backslashes, unicode — and
// the bash form is always one line, so a command stays a single command for the bash plugin.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::client {

// One bash word that expands to exactly `value`, always one line: common::bash_word
// (common/shell_quote.hpp, the one owner of shell quoting).
std::string bash_quote(std::string_view value);

// A Python 3 str literal ("..." with JSON escapes, non-ASCII kept raw so astral characters stay one
// code point). Throws std::invalid_argument when `value` is not valid UTF-8.
std::string python_str_literal(std::string_view value);

// A shell variable name: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);

}  // namespace actionhost::client
