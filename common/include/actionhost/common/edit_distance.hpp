// How close two words are, for "did you mean ...?" suggestions (ahctl's options, config keys).
#pragma once

#include <cstddef>
#include <string>

namespace actionhost::common {

// The Levenshtein distance: the fewest single-character insertions, deletions and replacements that
// turn `a` into `b`. O(|a|·|b|) time, O(|b|) memory: for short words only.
std::size_t edit_distance(const std::string &a, const std::string &b);

}  // namespace actionhost::common
