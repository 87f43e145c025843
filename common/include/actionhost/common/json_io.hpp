// JSON in and out with the limits untrusted input needs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "actionhost/common/json_write.hpp"  // dump_json, the one writer
#include "actionhost/common/result.hpp"

namespace actionhost::common {

// Deeper nesting than this is refused: nothing OpenHands sends nests beyond a handful of levels, and
// dumping a pathological document recurses.
inline constexpr int kMaxJsonDepth = 256;

// Parses `text` as JSON, refusing invalid UTF-8 and nesting deeper than kMaxJsonDepth. Never throws; the
// error says why (nlohmann's text, or the depth), for a 4xx body or an error observation.
// simdjson reads the text (simdjson_document.hpp says why); what it refuses, nlohmann parses
// again, so the value, what is accepted and every error are exactly nlohmann's parser's. Any thread.
Result<nlohmann::json> parse_json(std::string_view text);

namespace detail {
// parse_json without simdjson: what parse_json must always agree with (its tests and fuzzer compare them).
Result<nlohmann::json> parse_json_with_nlohmann_only(std::string_view text);
}  // namespace detail

// The JSON object stored in the file at `path` (a record, a state file): nullopt when the file is
// missing or unreadable, or holds anything but one JSON object (a half-written file, say). Never throws.
std::optional<nlohmann::json> read_json_object_file(const std::string &path);


}  // namespace actionhost::common
