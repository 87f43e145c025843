#include "actionhost/common/json_io.hpp"

#include <fstream>

namespace actionhost::common {

Result<nlohmann::json> parse_json(std::string_view text) {
    bool too_deep = false;
    auto depth_guard = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json &) {
        if (depth > kMaxJsonDepth) too_deep = true;
        return !too_deep;
    };
    try {
        nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), depth_guard, true, false);
        if (too_deep) return fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        return value;
    } catch (const nlohmann::json::exception &e) {
        return fail(too_deep ? "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels" : e.what());
    }
}

std::string dump_json(const nlohmann::json &value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<nlohmann::json> read_json_object_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    nlohmann::json value = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!value.is_object()) return std::nullopt;  // a parse error is `discarded`, not an object
    return value;
}

}  // namespace actionhost::common
