#include "files/binary_check.hpp"

#include <actionhost/common/utf8.hpp>


namespace actionhost::host {

bool looks_binary(std::string_view b) {
    if (b.empty()) return false;
    size_t low = 0, high = 0;  // bytes outside printable ASCII + text controls; bytes outside 127..255
    for (unsigned char c : b) {
        const bool text_control = c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\b';
        if (!(text_control || (c >= 0x20 && c < 0x7f))) ++low;
        if (!(text_control || c >= 127)) ++high;
    }
    const double r1 = static_cast<double>(low) / b.size();
    const double r2 = static_cast<double>(high) / b.size();
    if (r1 > 0.90 && r2 > 0.90) return true;
    const bool likely_binary = (r1 > 0.3 && r2 < 0.05) || (r1 > 0.8 && r2 > 0.8);
    // The chunk may end inside a multi-byte character: judge the complete prefix.
    const bool decodable = common::is_valid_utf8(b.substr(0, common::utf8_complete_prefix(b))) &&
                           b.find('\0') == std::string_view::npos;
    if (likely_binary) return !decodable;
    if (decodable) return false;
    return b.find('\0') != std::string_view::npos || b.find('\xff') != std::string_view::npos;
}

}  // namespace actionhost::host
