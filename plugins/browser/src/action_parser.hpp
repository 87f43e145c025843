// Parser for BrowserGym action strings: the Python-call subset agents write, e.g.
//   fill('12', "it's") ; click("14", button='right')   # comment
//   select_option('20', ['a', 'b'])
// A small tokenizer and a recursive-descent parser (no string splitting): several calls separated by
// newlines or semicolons, positional then keyword arguments, literal values only (strings in all
// Python quote styles with escapes, numbers, True/False/None, lists, tuples, dicts).
#pragma once

#include <actionhost/common/result.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actionhost::browser {

// One call as written. Values are JSON: Python str/int/float/bool/None map onto JSON directly, lists
// and tuples onto arrays, dicts (string keys only) onto objects.
struct ParsedCall {
    std::string name;
    std::vector<nlohmann::json> args;
    std::vector<std::pair<std::string, nlohmann::json>> kwargs;
    int line = 1;
    int column = 1;
};

// Parses `code` into its calls (at least one). Never throws; every malformed input fails with a
// BrowserGym-style error, "<ExceptionClass>: <message>", e.g. "ValueError: Received an empty action."
// or "SyntaxError: ... (line 1, column 8)".
common::Result<std::vector<ParsedCall>> parse_actions(std::string_view code);

}  // namespace actionhost::browser
