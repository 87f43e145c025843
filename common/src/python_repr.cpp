#include <actionhost/common/python_repr.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>
#include <actionhost/common/utf8.hpp>

namespace actionhost::common {
namespace {

// Decodes one UTF-8 code point at `i`, advancing it; invalid bytes decode as themselves (U+FFFD-free).
char32_t next_code_point(std::string_view s, size_t &i) {
    auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
        ++i;
        return 0xFFFD;
    }
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    return cp;
}


// Python's str.isprintable() is false for categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than the
// space. Without a Unicode database at hand, this covers the code points that occur in web text.
bool is_python_non_printable(char32_t cp) {
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0)) return true;  // Cc, and NBSP (Zs)
    if (cp == 0xAD) return true;                                  // soft hyphen (Cf)
    if (cp >= 0x2000 && cp <= 0x200F) return true;               // Zs spaces, ZW* (Cf), marks
    if (cp >= 0x2028 && cp <= 0x202F) return true;               // Zl, Zp, bidi (Cf), NNBSP
    if (cp >= 0x205F && cp <= 0x206F) return true;               // MMSP, invisible operators
    if (cp == 0x1680 || cp == 0x3000 || cp == 0xFEFF) return true;
    if (cp >= 0xD800 && cp <= 0xDFFF) return true;                // Cs
    if (cp >= 0xE000 && cp <= 0xF8FF) return true;                // Co
    if (cp >= 0xFFF9 && cp <= 0xFFFB) return true;                // interlinear annotation (Cf)
    if (cp == 0xFFFE || cp == 0xFFFF) return true;                // Cn
    if (cp >= 0xF0000) return true;                               // planes 15-16: Co
    if (cp >= 0xE0000 && cp <= 0xE007F) return true;              // tags (Cf)
    return false;
}

bool is_python_space(char32_t cp) {
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

}  // namespace

std::string python_repr_string(std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos;
    bool has_double = s.find('"') != std::string_view::npos;
    char quote = (has_single && !has_double) ? '"' : '\'';
    std::string out;
    out.reserve(s.size() + 2);
    out += quote;
    size_t i = 0;
    while (i < s.size()) {
        char32_t cp = next_code_point(s, i);
        if (cp == '\\') {
            out += "\\\\";
        } else if (cp == static_cast<char32_t>(quote)) {
            out += '\\';
            out += quote;
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (is_python_non_printable(cp)) {
            char buf[16];
            if (cp <= 0xFF)
                std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
            else if (cp <= 0xFFFF)
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            else
                std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            append_utf8(out, cp);
        }
    }
    out += quote;
    return out;
}

std::string python_repr_float(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
    // Shortest round-trip digits in scientific form, then laid out as Python's float_repr_style 'short'.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    bool negative = sci[0] == '-';
    if (negative) sci.erase(0, 1);
    size_t e = sci.find('e');
    int exponent = std::stoi(sci.substr(e + 1));
    std::string digits;
    for (size_t k = 0; k < e; ++k)
        if (sci[k] != '.') digits += sci[k];
    std::string out;
    if (exponent < -4 || exponent >= 16) {
        out = digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char eb[16];
        std::snprintf(eb, sizeof eb, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        out += eb;
    } else if (exponent < 0) {
        out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
        auto int_len = static_cast<size_t>(exponent + 1);
        if (digits.size() <= int_len) {
            out = digits + std::string(int_len - digits.size(), '0') + ".0";
        } else {
            out = digits.substr(0, int_len) + "." + digits.substr(int_len);
        }
    }
    return negative ? "-" + out : out;
}

std::string python_repr(const nlohmann::json &v) {
    switch (v.type()) {
        case nlohmann::json::value_t::null:
            return "None";
        case nlohmann::json::value_t::boolean:
            return v.get<bool>() ? "True" : "False";
        case nlohmann::json::value_t::number_integer:
            return std::to_string(v.get<int64_t>());
        case nlohmann::json::value_t::number_unsigned:
            return std::to_string(v.get<uint64_t>());
        case nlohmann::json::value_t::number_float:
            return python_repr_float(v.get<double>());
        case nlohmann::json::value_t::string:
            return python_repr_string(v.get_ref<const std::string &>());
        case nlohmann::json::value_t::array: {
            std::string out = "[";
            bool first = true;
            for (const auto &item : v) {
                if (!first) out += ", ";
                first = false;
                out += python_repr(item);
            }
            return out + "]";
        }
        case nlohmann::json::value_t::object: {
            std::string out = "{";
            bool first = true;
            for (const auto &[key, item] : v.items()) {
                if (!first) out += ", ";
                first = false;
                out += python_repr_string(key) + ": " + python_repr(item);
            }
            return out + "}";
        }
        default:
            return "None";
    }
}

std::string python_strip(std::string_view s) {
    std::vector<std::pair<size_t, char32_t>> cps;  // (byte offset, code point)
    size_t i = 0;
    while (i < s.size()) {
        size_t at = i;
        cps.emplace_back(at, next_code_point(s, i));
    }
    size_t first = 0, last = cps.size();
    while (first < last && is_python_space(cps[first].second)) ++first;
    while (last > first && is_python_space(cps[last - 1].second)) --last;
    if (first == last) return "";
    size_t begin = cps[first].first;
    size_t end = last < cps.size() ? cps[last].first : s.size();
    return std::string(s.substr(begin, end - begin));
}

}  // namespace actionhost::common
