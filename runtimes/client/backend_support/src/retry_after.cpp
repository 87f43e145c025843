#include "actionhost/runtime_support/retry_after.hpp"

#include <Poco/DateTimeFormatter.h>
#include <Poco/DateTimeParser.h>
#include <Poco/Exception.h>

#include <cmath>
#include <cstdlib>

namespace actionhost::runtime_support {

namespace {

// A non-negative decimal number and nothing else ("1.5"; not "1.5s", "-1", "inf" or "").
std::optional<double> plain_number(const std::string &text) {
    if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
    char *end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

}  // namespace

std::optional<double> retry_after_seconds(const std::map<std::string, std::string> &headers,
                                          std::chrono::system_clock::time_point now) {
    if (auto ms = headers.find("retry-after-ms"); ms != headers.end())
        if (auto v = plain_number(ms->second)) return *v / 1000.0;
    auto it = headers.find("retry-after");
    if (it == headers.end()) return std::nullopt;
    if (auto v = plain_number(it->second)) return *v;
    // An HTTP date in any of the three forms RFC 9110 §5.6.7 has recipients accept. Poco's parser is
    // lenient (it makes a date of "soon"), so a parse counts only when formatting it back gives the text.
    // (IMF-fixdate, RFC 850, asctime; the zone is always GMT.)
    for (const char *format : {"%w, %d %b %Y %H:%M:%S GMT", "%W, %d-%b-%y %H:%M:%S GMT", "%w %b %f %H:%M:%S %Y"}) {
        try {
            int tz = 0;
            const Poco::DateTime when = Poco::DateTimeParser::parse(format, it->second, tz);
            if (Poco::DateTimeFormatter::format(when, format, tz) != it->second) continue;
            const double at = static_cast<double>(when.timestamp().epochMicroseconds()) / 1e6 - tz;
            const double from = std::chrono::duration<double>(now.time_since_epoch()).count();
            return std::max(0.0, at - from);
        } catch (const Poco::Exception &) {
        }
    }
    return std::nullopt;
}

}  // namespace actionhost::runtime_support
