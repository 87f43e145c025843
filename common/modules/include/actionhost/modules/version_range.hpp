// Plugin versions and the ranges a manifest's "requires.plugins" gives them ("jupyter": ">=1.2 <2"):
// the one semver-range implementation, used by the host's loader (a loaded dependency must satisfy its
// range) and by `ahctl plugin install` (the highest tag of the registry that satisfies it).
//
// A version is MAJOR.MINOR.PATCH of decimal numbers (what every manifest's "version" is), optionally
// led by "v" as tags often are. A range is npm's subset that plugins need:
//   ""  "*"  "x"            any version
//   "1.2.3"  "=1.2.3"       exactly that version
//   "1.2"  "1.2.x"  "1"     an x-range: >=1.2.0 <1.3.0, >=1.0.0 <2.0.0
//   ">=1.2"  ">1"  "<2"  "<=1.4.1"   a comparison (missing parts are 0: "<2" is "<2.0.0")
//   "^1.2.3"                >=1.2.3 <2.0.0 (^0.2.3: <0.3.0; ^0.0.3: <0.0.4), as npm
//   "~1.2.3"  "~1.2"        >=1.2.3 <1.3.0
//   "A B"                   both (comparators separated by spaces)
//   "R1 || R2"              either
// Pre-release versions ("1.2.0-rc1") are not plugin versions: a range naming one is refused, and a
// registry tag that is one is not a candidate. Every refusal says what was wrong and where.
//
// Threads: pure functions and values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actionhost/common/result.hpp"

namespace actionhost::modules {

struct Version {
    uint32_t major = 0, minor = 0, patch = 0;
    auto operator<=>(const Version &) const = default;
};

// "1.2.3" or "v1.2.3"; every other text is refused with why.
common::Result<Version> parse_plugin_version(std::string_view text);
std::string to_string(const Version &v);

class VersionRange {
  public:
    // The range `text` (see above); an empty or "*" text is any version.
    static common::Result<VersionRange> parse(std::string_view text);
    bool contains(const Version &v) const;
    // Whether `version_text` is a version the range contains (false for a text that is no version).
    bool contains(std::string_view version_text) const;
    // The highest of `candidates` (texts, e.g. a registry's tags) the range contains; "" when none does.
    std::string best_of(const std::vector<std::string> &candidates) const;
    const std::string &text() const { return text_; }
    bool any() const;

  private:
    enum class Op { Less, LessEqual, Greater, GreaterEqual, Equal };
    struct Comparator {
        Op op;
        Version v;
    };
    std::vector<std::vector<Comparator>> alternatives_;  // OR of ANDs
    std::string text_;
    static common::Status add_comparators(std::string_view word, std::vector<Comparator> &out);
};

}  // namespace actionhost::modules
