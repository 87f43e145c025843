#include "actionhost/common/observation.hpp"

#include <optional>
#include <vector>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/simdjson_document.hpp"

namespace actionhost::common {

namespace {

// nlohmann's SAX interface: follows the path of object keys down to each value and keeps only the
// fields inspect_observation reports. Any value inside an array breaks the path (it is not a field).
class ObservationScan {
  public:
    using json = nlohmann::json;

    bool null() { return value(Kind::Other); }
    bool boolean(bool) { return value(Kind::Other); }
    bool number_integer(json::number_integer_t) { return value(Kind::Other); }
    bool number_unsigned(json::number_unsigned_t) { return value(Kind::Other); }
    bool number_float(json::number_float_t, const json::string_t &) { return value(Kind::Other); }
    bool binary(json::binary_t &) { return value(Kind::Other); }
    bool string(json::string_t &s) {
        if (at({"extras", "metadata", "working_dir"})) facts.working_dir = s;
        if (frames_.size() == 1 && !frames_[0].array && frames_[0].key == "observation") facts.is_error = s == "error";
        return value(Kind::String);
    }
    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t &k) {
        frames_.back().key = k;
        if (at({"extras", "metadata", "working_dir"})) facts.working_dir.clear();  // a later duplicate wins
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) {
        error = e.what();
        return false;
    }

    ObservationFacts facts;
    std::string error;  // the parser's message
    bool root_is_object = false;
    bool observation_is_string = false, content_is_string = false;
    bool too_deep = false;

  private:
    enum class Kind { String, Other };
    struct Frame {
        bool array;
        std::string key;
    };

    // Whether the value about to be read sits at this path of object keys from the root.
    bool at(std::initializer_list<std::string_view> path) const {
        if (frames_.size() != path.size()) return false;
        size_t i = 0;
        for (std::string_view k : path) {
            if (frames_[i].array || frames_[i].key != k) return false;
            ++i;
        }
        return true;
    }
    bool value(Kind kind) {
        if (frames_.size() == 1 && !frames_[0].array) {
            if (frames_[0].key == "observation") {
                observation_is_string = kind == Kind::String;
                if (kind != Kind::String) facts.is_error = false;  // a later duplicate wins
            }
            if (frames_[0].key == "content") content_is_string = kind == Kind::String;
        }
        return true;
    }
    bool open(bool array) {
        if (frames_.empty()) root_is_object = !array;
        else value(Kind::Other);
        if (frames_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
            too_deep = true;
            return false;
        }
        frames_.push_back({array, {}});
        return true;
    }
    bool close() {
        frames_.pop_back();
        return true;
    }

    std::vector<Frame> frames_;
};

// The same verdict from simdjson's document: nullopt when simdjson does not read the text (then the scan
// above decides, and words the refusal).
std::optional<Result<ObservationFacts>> inspect_with_simdjson(std::string_view text) {
    std::optional<Result<ObservationFacts>> verdict;
    with_simdjson_document(text, [&](simdjson::dom::element root) {
        simdjson::dom::object top;
        if (root.get_object().get(top) != simdjson::SUCCESS) {
            verdict = fail("not a JSON object");
            return;
        }
        // Field by field in document order, so a later duplicate wins, as in the scan.
        bool observation_is_string = false, content_is_string = false;
        ObservationFacts facts;
        for (simdjson::dom::key_value_pair field : top) {
            if (field.key == "observation") {
                observation_is_string = field.value.is_string();
                facts.is_error = observation_is_string && field.value.get_string().value_unsafe() == "error";
            }
            else if (field.key == "content") content_is_string = field.value.is_string();
            else if (field.key == "extras" && field.value.is_object()) {
                for (simdjson::dom::key_value_pair extra : simdjson::dom::object(field.value)) {
                    if (extra.key != "metadata" || !extra.value.is_object()) continue;
                    for (simdjson::dom::key_value_pair meta : simdjson::dom::object(extra.value))
                        if (meta.key == "working_dir")
                            facts.working_dir = meta.value.is_string() ? std::string(meta.value.get_string().value_unsafe()) : "";
                }
            }
        }
        if (!observation_is_string) verdict = fail("no string \"observation\"");
        else if (!content_is_string) verdict = fail("no string \"content\"");
        else verdict = std::move(facts);
    });
    return verdict;
}

}  // namespace

Result<ObservationFacts> inspect_observation(std::string_view text) {
    if (auto verdict = inspect_with_simdjson(text)) return std::move(*verdict);
    return detail::inspect_observation_with_nlohmann_only(text);
}

namespace detail {

Result<ObservationFacts> inspect_observation_with_nlohmann_only(std::string_view text) {
    ObservationScan scan;
    bool parsed = false;
    try {
        parsed = nlohmann::json::sax_parse(text.begin(), text.end(), &scan);
    } catch (const nlohmann::json::exception &e) {
        scan.error = e.what();
    }
    if (scan.too_deep) return fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (parsed && !scan.root_is_object) return fail("not a JSON object");
    if (parsed && !scan.observation_is_string) return fail("no string \"observation\"");
    if (parsed && !scan.content_is_string) return fail("no string \"content\"");
    if (!parsed || !scan.error.empty()) return fail(scan.error);
    return std::move(scan.facts);
}

}  // namespace detail

nlohmann::json error_observation(const std::string &content, const std::string &error_id) {
    return {{"message", content},
            {"observation", "error"},
            {"content", content},
            {"extras", {{"error_id", error_id}}}};
}

std::string run_message(const std::string &command, int exit_code) {
    return "Command `" + command + "` executed with exit code " + std::to_string(exit_code) + ".";
}

}  // namespace actionhost::common
