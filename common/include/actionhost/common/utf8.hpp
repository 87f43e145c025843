// UTF-8 checks for text that came from processes or files and is about to go into JSON.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::common {

bool is_valid_utf8(std::string_view text);

// Appends the UTF-8 encoding of code point `cp` (below 0x110000) to `out`.
void append_utf8(std::string &out, char32_t cp);

// Returns `text` with every invalid sequence replaced by U+FFFD (one per maximal invalid subpart).
std::string sanitize_utf8(std::string_view text);

// Length of the longest prefix of `text` that does not end inside a multi-byte sequence; used to cut
// streamed output at character boundaries.
size_t utf8_complete_prefix(std::string_view text);

}  // namespace actionhost::common
