#include <actionhost/common/shell_quote.hpp>

namespace actionhost::common {

std::string shell_word(std::string_view value) {
    if (!value.empty() &&
        value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./-_") == std::string_view::npos)
        return std::string(value);
    std::string out = "'";
    for (char c : value) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::string shell_words(const std::vector<std::string> &argv) {
    std::string out;
    for (const auto &a : argv) out += (out.empty() ? "" : " ") + shell_word(a);
    return out;
}

std::string bash_word(std::string_view value) {
    bool plain = true;
    for (unsigned char c : value)
        if (c == '\'' || c < 0x20 || c == 0x7f) plain = false;
    if (plain) return "'" + std::string(value) + "'";
    static const char *hex = "0123456789abcdef";
    std::string out = "$'";
    for (unsigned char c : value) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\'': out += "\\'"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    // \xHH reads at most two hex digits, so a following character is never swallowed.
                    out += "\\x";
                    out += hex[c >> 4];
                    out += hex[c & 15];
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += "'";
    return out;
}

}  // namespace actionhost::common
