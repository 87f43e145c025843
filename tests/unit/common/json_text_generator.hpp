// Random JSON-ish texts for the differential tests of common's parsers: well-formed documents of every
// value kind (numbers at the edges of their types, escapes, surrogates, duplicate keys, deep nesting),
// and the same documents with a byte changed, cut or inserted, so both readers see broken texts too.
// Deterministic for a seed.
#pragma once

#include <random>
#include <string>

namespace actionhost::testing {

class JsonTextGenerator {
  public:
    explicit JsonTextGenerator(unsigned seed) : rng_(seed) {}

    // One document; `broken` damages it at a random place.
    std::string next(bool broken) {
        std::string text = value(0);
        if (broken && !text.empty()) damage(text);
        return text;
    }

    // A value; objects as an observation holds them are made more often than others.
    std::string value(int depth) {
        const int kinds = depth > 6 ? 5 : 8;
        switch (pick(kinds)) {
            case 0: return number();
            case 1: return string();
            case 2: return pick(2) ? "true" : "false";
            case 3: return "null";
            case 4: return pick(3) == 0 ? deep_nest() : string();
            case 5: return array(depth);
            default: return object(depth);
        }
    }

    // A string literal of escapes, surrogates and UTF-8 (valid or not).
    std::string string() {
        static const char *const pieces[] = {"a", "working_dir", "observation", "content", "extras", "metadata",
                                             "\\n", "\\\"", "\\\\", "\\/", "\\u0000", "\\u00e9", "\\ud83d\\ude00",
                                             "\\ud800", "\\udc00", "\\ud800x", "\\uZZZZ", "\\x", "\xc3\xa9",
                                             "\xf0\x9f\x98\x80", "\xff", "\xc0\xaf", "\xed\xa0\x80", "\t", "\x01",
                                             "-0", " ", "\xe2\x80\xa8"};
        std::string s = "\"";
        const int n = pick(4);
        for (int i = 0; i < n; ++i) s += pieces[pick(sizeof pieces / sizeof *pieces)];
        return s + "\"";
    }

  private:
    int pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }

    std::string number() {
        static const char *const edges[] = {"0", "-0", "-0.0", "0.0", "1", "-1", "1e2", "1E+2", "1e-2", "-1.5e300",
                                            "1e400", "-1e400", "4.9e-324", "2.2250738585072014e-308",
                                            "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                                            "-9223372036854775809", "18446744073709551615", "18446744073709551616",
                                            "123456789012345678901234567890", "0.1", "3.141592653589793", "01", "+1",
                                            ".5", "1.", "-", "1e", "NaN", "Infinity", "-0e0", "0e-0"};
        if (pick(2)) return edges[pick(sizeof edges / sizeof *edges)];
        return std::to_string(static_cast<long long>(rng_()) - (1LL << 31)) + (pick(3) == 0 ? ".25" : "");
    }

    std::string key() {
        static const char *const keys[] = {"\"observation\"", "\"content\"", "\"extras\"", "\"metadata\"",
                                           "\"working_dir\"", "\"a\"", "\"\"", "\"\\u0061\""};
        return pick(5) ? keys[pick(sizeof keys / sizeof *keys)] : string();
    }

    std::string array(int depth) {
        std::string s = "[";
        const int n = pick(4);
        for (int i = 0; i < n; ++i) s += (i ? "," : "") + value(depth + 1);
        return s + "]";
    }

    std::string object(int depth) {
        std::string s = "{";
        const int n = pick(5);
        for (int i = 0; i < n; ++i) s += (i ? ", " : " ") + key() + ":" + value(depth + 1);
        return s + "}";
    }

    // Nesting around the depth limits of both readers (simdjson's 64 here, kMaxJsonDepth 256).
    std::string deep_nest() {
        static const int depths[] = {62, 63, 64, 65, 66, 255, 256, 257, 258};
        const int d = depths[pick(sizeof depths / sizeof *depths)];
        const bool objects = pick(2);
        std::string s;
        for (int i = 0; i < d; ++i) s += objects ? "{\"a\":" : "[";
        s += "1";
        for (int i = 0; i < d; ++i) s += objects ? "}" : "]";
        return s;
    }

    void damage(std::string &text) {
        const size_t at = static_cast<size_t>(rng_() % text.size());
        static const char bytes[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', '\0', '\xff', ' ', 'u'};
        switch (pick(3)) {
            case 0: text[at] = bytes[pick(sizeof bytes)]; break;
            case 1: text.resize(at); break;
            default: text.insert(at, 1, bytes[pick(sizeof bytes)]); break;
        }
    }

    std::mt19937 rng_;
};

}  // namespace actionhost::testing
