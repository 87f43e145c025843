// Whether a file's first bytes look binary, by the rules of Python's binaryornot (which OpenHands uses),
// with "decodable as unicode" judged by UTF-8 validity instead of chardet.
#pragma once

#include <string_view>

namespace actionhost::host {

// `first_bytes`: the first 1024 bytes of a file, as binaryornot reads them.
bool looks_binary(std::string_view first_bytes);

}  // namespace actionhost::host
