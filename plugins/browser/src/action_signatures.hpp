// The BrowserGym action functions' Python signatures, and Python's argument binding against them, so
// that a wrong call fails with the TypeError text Python would print.
#pragma once

#include <actionhost/common/result.hpp>
#include <map>
#include <optional>
#include <string>

#include "action_parser.hpp"

namespace actionhost::browser {

// Arguments by parameter name, defaults filled in.
struct BoundCall {
    std::string name;
    std::map<std::string, nlohmann::json> args;
};

// True when `name` is an action of BrowserGym's default high-level action set (bid, nav, tab, chat,
// infeas subsets and noop).
bool is_known_action(const std::string &name);

// Binds `call` as Python would. A failure says why as Python would:
// "TypeError: fill() missing 1 required positional argument: 'value'" and the like.
common::Result<BoundCall> bind_call(const ParsedCall &call);

}  // namespace actionhost::browser
