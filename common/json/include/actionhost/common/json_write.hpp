// The one JSON writer (header-only, so a backend module that links nothing else of common/ uses it too):
// invalid UTF-8 in strings becomes U+FFFD instead of an exception. nlohmann's bare dump() throws on the
// first invalid byte — of a user's environment value, a file name, a command's output — and is refused
// anywhere else by the suite (SourceRules.NoBareJsonDumpOutsideTheWriter). Where invalid UTF-8 must be an error, say so with
// an explicit error_handler_t::strict.
//
// Threads: any.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace actionhost::common {

// `indent` as nlohmann's: -1 one line, n >= 0 pretty with n spaces.
inline std::string dump_json(const nlohmann::json &value, int indent = -1) {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The same for an ordered_json (keys in insertion order).
inline std::string dump_ordered_json(const nlohmann::ordered_json &value) {
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// An ordered_json given to dump_json would be converted to a json first, its keys re-sorted: refused at
// compile time (use dump_ordered_json).
template <class T, std::enable_if_t<std::is_same_v<T, nlohmann::ordered_json>, int> = 0>
std::string dump_json(const T &) = delete;

}  // namespace actionhost::common
