#include "actionhost/common/json_io.hpp"

#include <fstream>
#include <optional>

#include "actionhost/common/simdjson_document.hpp"

namespace actionhost::common {

namespace {

// simdjson's document as nlohmann's, value for value as nlohmann's parser builds it.
class SimdjsonToNlohmann {
  public:
    explicit SimdjsonToNlohmann(std::string_view text) : text_(text) {}

    // False when the value cannot be told apart from another that nlohmann would build differently (then
    // nlohmann parses the text itself).
    bool convert(simdjson::dom::element e, nlohmann::json &out) {
        using simdjson::dom::element_type;
        switch (e.type()) {
            case element_type::OBJECT: {
                out = nlohmann::json::object();
                // Later duplicates win, as with nlohmann's own parser.
                for (simdjson::dom::key_value_pair kv : simdjson::dom::object(e))
                    if (!convert(kv.value, out[std::string(kv.key)])) return false;
                return true;
            }
            case element_type::ARRAY: {
                out = nlohmann::json::array();
                for (simdjson::dom::element v : simdjson::dom::array(e)) {
                    out.push_back(nullptr);
                    if (!convert(v, out.back())) return false;
                }
                return true;
            }
            case element_type::STRING: out = std::string(e.get_string().value_unsafe()); return true;
            case element_type::INT64: {
                // nlohmann keeps an integer written without a sign as unsigned, and "-0" as a signed 0;
                // simdjson reads both "0" and "-0" as 0.
                const int64_t v = e.get_int64().value_unsafe();
                if (v == 0 && may_hold_minus_zero()) return false;
                if (v >= 0) out = static_cast<uint64_t>(v);
                else out = v;
                return true;
            }
            case element_type::UINT64: out = e.get_uint64().value_unsafe(); return true;
            case element_type::DOUBLE: out = e.get_double().value_unsafe(); return true;
            case element_type::BOOL: out = e.get_bool().value_unsafe(); return true;
            case element_type::NULL_VALUE: out = nullptr; return true;
        }
        return false;
    }

  private:
    // Whether the text has "-0" anywhere: looked for once, at the first integer 0 (most texts have none).
    bool may_hold_minus_zero() {
        if (!minus_zero_) minus_zero_ = text_.find("-0") != std::string_view::npos;
        return *minus_zero_;
    }
    std::string_view text_;
    std::optional<bool> minus_zero_;
};

// nlohmann's own parser: the judge of every text simdjson does not read, and the wording of every refusal.
Result<nlohmann::json> parse_with_nlohmann(std::string_view text) {
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

}  // namespace

Result<nlohmann::json> parse_json(std::string_view text) {
    nlohmann::json value;
    bool converted = false;
    const bool read = with_simdjson_document(text, [&](simdjson::dom::element root) {
        converted = SimdjsonToNlohmann(text).convert(root, value);
    });
    if (read && converted) return value;
    return parse_with_nlohmann(text);
}

namespace detail {
Result<nlohmann::json> parse_json_with_nlohmann_only(std::string_view text) { return parse_with_nlohmann(text); }
}  // namespace detail

std::optional<nlohmann::json> read_json_object_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    nlohmann::json value = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!value.is_object()) return std::nullopt;  // a parse error is `discarded`, not an object
    return value;
}

}  // namespace actionhost::common
