#include "actionhost/modules/version_range.hpp"

#include <charconv>
#include <optional>

namespace actionhost::modules {
namespace {

constexpr uint32_t kMaxPart = 999'999'999;  // so that "the next major" never overflows

// A version with 0 to 3 of its parts given ("1", "1.2", "1.2.x", "*"): `given` counts the numbers
// before the first wildcard or the end.
struct Partial {
    uint32_t part[3] = {0, 0, 0};
    int given = 0;
};

common::Result<Partial> parse_partial(std::string_view word, std::string_view range) {
    const auto refuse = [&](const std::string &why) {
        return common::fail("the version range \"" + std::string(range) + "\": \"" + std::string(word) + "\" " + why);
    };
    if (word.empty()) return refuse("lacks a version");
    if (word.find_first_of("-+") != std::string_view::npos)
        return refuse("is a pre-release or build version, which plugin versions are not (MAJOR.MINOR.PATCH)");
    if (word[0] == 'v' || word[0] == 'V') word.remove_prefix(1);
    Partial p;
    bool wildcard = false;
    size_t at = 0;
    for (int i = 0; i < 3; ++i) {
        const size_t dot = word.find('.', at);
        const std::string_view piece = word.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at);
        if (piece == "x" || piece == "X" || piece == "*") {
            wildcard = true;
        } else {
            if (wildcard) return refuse("has a number after a wildcard");
            uint32_t n = 0;
            auto [end, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), n);
            if (piece.empty() || ec != std::errc() || end != piece.data() + piece.size())
                return refuse("is not a version (MAJOR[.MINOR[.PATCH]], numbers or x)");
            if (n > kMaxPart) return refuse("has a number past " + std::to_string(kMaxPart));
            if (piece.size() > 1 && piece[0] == '0') return refuse("has a number with a leading zero");
            p.part[i] = n;
            p.given = i + 1;
        }
        if (dot == std::string_view::npos) return p;
        at = dot + 1;
    }
    return refuse("has more than three parts");
}

Version floor_of(const Partial &p) { return {p.part[0], p.part[1], p.part[2]}; }

// The first version past every one `p` stands for ("1.2" → 1.3.0, "1" → 2.0.0).
Version ceiling_of(const Partial &p) {
    if (p.given == 1) return {p.part[0] + 1, 0, 0};
    if (p.given == 2) return {p.part[0], p.part[1] + 1, 0};
    return {p.part[0], p.part[1], p.part[2] + 1};
}

}  // namespace

common::Result<Version> parse_plugin_version(std::string_view text) {
    std::string_view t = text;
    if (!t.empty() && (t[0] == 'v' || t[0] == 'V')) t.remove_prefix(1);
    Version v;
    uint32_t *parts[3] = {&v.major, &v.minor, &v.patch};
    const char *p = t.data();
    const char *end = t.data() + t.size();
    for (int i = 0; i < 3; ++i) {
        auto [next, ec] = std::from_chars(p, end, *parts[i]);
        if (ec != std::errc() || next == p || *parts[i] > kMaxPart)
            return common::fail("\"" + std::string(text) + "\" is not a plugin version (MAJOR.MINOR.PATCH)");
        p = next;
        if (i < 2) {
            if (p == end || *p != '.') return common::fail("\"" + std::string(text) + "\" is not a plugin version (MAJOR.MINOR.PATCH)");
            ++p;
        }
    }
    if (p != end) return common::fail("\"" + std::string(text) + "\" is not a plugin version (MAJOR.MINOR.PATCH, no pre-release)");
    return v;
}

std::string to_string(const Version &v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

common::Status VersionRange::add_comparators(std::string_view word, std::vector<Comparator> &out) {
    std::string_view op;
    for (std::string_view o : {">=", "<=", "==", ">", "<", "=", "^", "~"})
        if (word.substr(0, o.size()) == o) {
            op = o;
            break;
        }
    const std::string_view rest = word.substr(op.size());
    auto parsed = parse_partial(rest, word);
    if (!parsed) return parsed.as_failure();
    const Partial p = parsed.value();
    const auto refuse = [&](const std::string &why) { return common::fail("the version range \"" + std::string(word) + "\" " + why); };
    if (op.empty() || op == "=" || op == "==") {
        if (p.given == 3) out.push_back({Op::Equal, floor_of(p)});
        else if (p.given > 0) {
            out.push_back({Op::GreaterEqual, floor_of(p)});
            out.push_back({Op::Less, ceiling_of(p)});
        }
    } else if (op == ">=") {
        out.push_back({Op::GreaterEqual, floor_of(p)});
    } else if (op == ">") {
        if (p.given == 0) return refuse("admits no version");
        out.push_back(p.given == 3 ? Comparator{Op::Greater, floor_of(p)} : Comparator{Op::GreaterEqual, ceiling_of(p)});
    } else if (op == "<") {
        if (p.given == 0) return refuse("admits no version");
        out.push_back({Op::Less, floor_of(p)});
    } else if (op == "<=") {
        if (p.given == 0) return common::ok();
        out.push_back(p.given == 3 ? Comparator{Op::LessEqual, floor_of(p)} : Comparator{Op::Less, ceiling_of(p)});
    } else if (op == "^") {
        out.push_back({Op::GreaterEqual, floor_of(p)});
        if (p.given == 0) return common::ok();
        // The first non-zero part given may not change; what is not given may.
        if (p.part[0] > 0 || p.given == 1) out.push_back({Op::Less, {p.part[0] + 1, 0, 0}});
        else if (p.part[1] > 0 || p.given == 2) out.push_back({Op::Less, {0, p.part[1] + 1, 0}});
        else out.push_back({Op::Less, {0, 0, p.part[2] + 1}});
    } else {  // "~": the patch may change (the minor too when only the major is given)
        out.push_back({Op::GreaterEqual, floor_of(p)});
        if (p.given == 1) out.push_back({Op::Less, {p.part[0] + 1, 0, 0}});
        else if (p.given >= 2) out.push_back({Op::Less, {p.part[0], p.part[1] + 1, 0}});
    }
    return common::ok();
}

common::Result<VersionRange> VersionRange::parse(std::string_view text) {
    VersionRange r;
    r.text_ = std::string(text);
    if (text.size() > 256) return common::fail("the version range \"" + std::string(text.substr(0, 40)) + "...\" is longer than 256 characters");
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
            return common::fail("the version range \"" + std::string(text) + "\" has a character that is not printable ASCII");
    size_t at = 0;
    for (;;) {
        const size_t bar = text.find("||", at);
        const std::string_view alternative = text.substr(at, bar == std::string_view::npos ? std::string_view::npos : bar - at);
        std::vector<Comparator> all;
        std::vector<std::string_view> words;
        for (size_t i = 0; i < alternative.size();) {
            while (i < alternative.size() && alternative[i] == ' ') ++i;
            const size_t j = std::min(alternative.find(' ', i), alternative.size());
            if (j > i) words.push_back(alternative.substr(i, j - i));
            i = j;
        }
        for (size_t i = 0; i < words.size(); ++i) {
            std::string word(words[i]);
            if (word == "-") return common::fail("the version range \"" + std::string(text) + "\": hyphen ranges (A - B) are not supported; write >=A <=B");
            // ">= 1.2": an operator alone takes the next word as its version.
            if (word.find_first_not_of("<>=^~") == std::string::npos) {
                if (i + 1 == words.size()) return common::fail("the version range \"" + std::string(text) + "\" ends with \"" + word + "\", which lacks its version");
                word += words[++i];
            }
            if (word == "*" || word == "x" || word == "X") continue;
            if (auto added = add_comparators(word, all); !added) return added.as_failure();
        }
        // An empty text is any version; an empty side of "||" is a typo, not "any".
        if (words.empty() && (bar != std::string_view::npos || at > 0))
            return common::fail("the version range \"" + std::string(text) + "\" has an empty alternative around \"||\"");
        r.alternatives_.push_back(std::move(all));
        if (bar == std::string_view::npos) break;
        at = bar + 2;
    }
    return r;
}

bool VersionRange::any() const {
    for (const auto &alt : alternatives_)
        if (alt.empty()) return true;
    return false;
}

bool VersionRange::contains(const Version &v) const {
    for (const auto &alt : alternatives_) {
        bool all = true;
        for (const auto &c : alt) {
            switch (c.op) {
                case Op::Less: all = v < c.v; break;
                case Op::LessEqual: all = v <= c.v; break;
                case Op::Greater: all = v > c.v; break;
                case Op::GreaterEqual: all = v >= c.v; break;
                case Op::Equal: all = v == c.v; break;
            }
            if (!all) break;
        }
        if (all) return true;
    }
    return false;
}

bool VersionRange::contains(std::string_view version_text) const {
    auto v = parse_plugin_version(version_text);
    return v && contains(v.value());
}

std::string VersionRange::best_of(const std::vector<std::string> &candidates) const {
    std::optional<Version> best;
    std::string best_text;
    for (const auto &c : candidates) {
        auto v = parse_plugin_version(c);
        if (!v || !contains(v.value())) continue;
        if (!best || v.value() > *best) {
            best = v.value();
            best_text = c;
        }
    }
    return best_text;
}

}  // namespace actionhost::modules
