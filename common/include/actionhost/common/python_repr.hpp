// Python's repr() of the values BrowserGym and OpenHands print: strings, bools, numbers, lists and dicts
// (as JSON). The browser's accessibility-tree text and error messages and the bash plugin's timeout
// messages quote values exactly as Python would; the one owner of it.
//
// Threads: any.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace actionhost::common {

// repr(str): '…', or "…" when the text holds ' but no "; \\ \n \r \t and non-printables escaped.
std::string python_repr_string(std::string_view utf8);

// repr(float) of a double: shortest round-trip digits, exponent form below 1e-4 and from 1e16.
std::string python_repr_float(double value);

// repr() of a JSON value read as the Python object json.loads would give.
std::string python_repr(const nlohmann::json &value);

// str.strip(): removes leading and trailing Unicode whitespace.
std::string python_strip(std::string_view utf8);

}  // namespace actionhost::common
