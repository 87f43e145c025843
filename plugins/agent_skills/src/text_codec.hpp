// Text files as the OpenHands editor sees them: a binary sniff (binaryornot's rules on the first
// 1024 bytes), the file's encoding (UTF-8 when the bytes are valid UTF-8, else uchardet's guess on the
// first 1 MB), Python's universal-newline reading, and writing back in the same encoding and newline
// convention.
#pragma once

#include <actionhost/common/result.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace actionhost::agent_skills {

// binaryornot.helpers.is_binary_string on `chunk` (callers pass the first 1024 bytes).
bool looks_binary(std::string_view chunk);

struct DecodedText {
    std::string text;      // UTF-8, newlines normalised to '\n'
    std::string encoding;  // "utf-8" or the iconv name uchardet gave (e.g. "WINDOWS-1251")
    bool crlf = false;     // the file used "\r\n" line ends throughout: written back that way
};

// Decodes file bytes; a failure says why in Python's words
// ("'utf-8' codec can't decode byte 0xff in position 3: invalid start byte").
common::Result<DecodedText> decode_text(std::string_view bytes);

// Encodes UTF-8 `text` back to `encoding` (and CRLF when asked). Fails when a character has no
// representation there.
common::Result<std::string> encode_text(std::string_view text, const std::string &encoding, bool crlf);

}  // namespace actionhost::agent_skills
