// Whether a file's first bytes look binary, by the rules of Python's binaryornot (which OpenHands uses),
// with "decodable as unicode" judged by UTF-8 validity instead of chardet.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::host {

bool looks_binary(std::string_view first_bytes);
// Reads up to 1024 bytes of `path`; a missing or unreadable file counts as text, as in OpenHands.
bool file_looks_binary(const std::string &path);

}  // namespace actionhost::host
