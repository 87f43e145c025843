#include "actionhost/common/text.hpp"

#include "actionhost/common/utf8.hpp"

#include <cctype>
#include <cstring>
#include <utility>

namespace actionhost::common {

namespace {
// Characters, as Python counts them: code points. Bytes would cut multi-byte text differently.
size_t count_code_points(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}
// Byte offset of the code point with index `cp`.
size_t offset_of_code_point(std::string_view s, size_t cp) {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            if (n == cp) return i;
            ++n;
        }
    }
    return s.size();
}
}  // namespace

std::string truncate_observation(std::string_view content, size_t max_chars) {
    const size_t total = count_code_points(content);
    if (total <= max_chars) return std::string(content);
    const size_t half = max_chars / 2;
    std::string out(content.substr(0, offset_of_code_point(content, half)));
    out += "\n[... Observation truncated due to length ...]\n";
    out += content.substr(offset_of_code_point(content, total - half));
    return out;
}

std::string strip_ansi(std::string_view t) {
    std::string out;
    out.reserve(t.size());
    for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] != '\x1b') {
            out += t[i];
            continue;
        }
        if (i + 1 >= t.size()) break;
        const char k = t[i + 1];
        if (k == '[') {  // CSI: parameters and intermediates, then a final byte 0x40-0x7E
            size_t j = i + 2;
            while (j < t.size() && !(t[j] >= 0x40 && t[j] <= 0x7E)) ++j;
            i = j;
        } else if (k == ']') {  // OSC: up to BEL or ESC backslash
            size_t j = i + 2;
            while (j < t.size() && t[j] != '\a' && !(t[j] == '\x1b' && j + 1 < t.size() && t[j + 1] == '\\')) ++j;
            i = (j < t.size() && t[j] == '\x1b') ? j + 1 : j;
        } else if (k == '(' || k == ')' || k == '*' || k == '+') {
            i += 2;  // character-set designation: ESC ( B is three bytes
        } else {
            i += 1;  // two-byte sequence such as ESC = or ESC 7
        }
    }
    return out;
}

std::string rstrip(std::string_view text) {
    size_t end = text.size();
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\n' || text[end - 1] == '\t' ||
                       text[end - 1] == '\r' || text[end - 1] == '\f' || text[end - 1] == '\v'))
        --end;
    return std::string(text.substr(0, end));
}

namespace {

// `text` with each control character — C0 (but newline and tab when `keep_lines`), DEL, C1 — as '?'.
std::string controls_as_question_marks(std::string_view text, bool keep_lines) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
            out += '?';  // a C1 control (U+0080..U+009F), which some terminals obey like ESC sequences
            ++i;
        } else if ((c < 0x20 && !(keep_lines && (c == '\n' || c == '\t'))) || c == 0x7F) {
            out += '?';
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace

std::string printable_for_terminal(std::string_view text) { return controls_as_question_marks(strip_ansi(text), true); }

std::string printable_name(std::string_view name) { return controls_as_question_marks(name, false); }

std::optional<uint64_t> parse_byte_size(std::string_view text) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 19) return std::nullopt;
    uint64_t n = 0;
    for (size_t i = 0; i < digits; ++i) n = n * 10 + static_cast<uint64_t>(text[i] - '0');
    std::string unit;
    for (char c : text.substr(digits)) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    int shift = -1;
    if (unit.empty() || unit == "b") shift = 0;
    for (const auto &[letter, bits] : {std::pair{'k', 10}, std::pair{'m', 20}, std::pair{'g', 30}, std::pair{'t', 40}})
        if (unit == std::string(1, letter) || unit == std::string(1, letter) + "b" || unit == std::string(1, letter) + "ib") shift = bits;
    if (shift < 0 || n == 0) return std::nullopt;
    if (n > (uint64_t{1} << 63) >> shift) return std::nullopt;
    return n << shift;
}

std::string ascii_lower(std::string_view text) {
    std::string out(text);
    for (auto &c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#x27;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string os_error_text(int err, const std::string &path) {
    return "[Errno " + std::to_string(err) + "] " + std::strerror(err) + ": '" + path + "'";
}

}  // namespace actionhost::common
