#include "actionhost/common/utf8.hpp"

namespace actionhost::common {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if none (RFC 3629: no overlongs,
// no surrogates, nothing above U+10FFFF).
size_t valid_sequence_length(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    if (b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    return n;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        size_t n = valid_sequence_length(text, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string sanitize_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        size_t n = valid_sequence_length(text, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
            // Skip continuation bytes of the same broken sequence so one error gives one U+FFFD.
            while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80 &&
                   valid_sequence_length(text, i) == 0)
                ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

size_t utf8_complete_prefix(std::string_view text) {
    size_t end = text.size();
    // Walk back over at most 3 continuation bytes to the lead byte of the last sequence.
    size_t k = end;
    int back = 0;
    while (k > 0 && back < 4 && (static_cast<unsigned char>(text[k - 1]) & 0xC0) == 0x80) {
        --k;
        ++back;
    }
    if (k == 0) return end;
    const unsigned char lead = static_cast<unsigned char>(text[k - 1]);
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need > 1 && static_cast<size_t>(back) + 1 < need) return k - 1;
    return end;
}

void append_utf8(std::string &out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace actionhost::common
