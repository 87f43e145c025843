#include "actionhost/client/shell_quote.hpp"

#include <actionhost/common/shell_quote.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace actionhost::client {

std::string bash_quote(std::string_view value) { return common::bash_word(value); }

std::string python_str_literal(std::string_view value) {
    try {
        // JSON's escapes are all valid in a Python literal; ensure_ascii stays off because Python does
        // not join \ud83d\ude00 surrogate escapes into one character as JSON parsers do.
        // Strict on purpose (not common::dump_json): invalid UTF-8 is an error here, not a U+FFFD.
        return nlohmann::json(std::string(value)).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } catch (const nlohmann::json::exception &) {
        throw std::invalid_argument("value is not valid UTF-8");
    }
}

bool is_env_name(std::string_view name) {
    if (name.empty()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        bool ok = c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9');
        if (!ok) return false;
    }
    return true;
}

}  // namespace actionhost::client
