// common's JSON readers against nlohmann alone: parse_json (simdjson, nlohmann for what simdjson refuses)
// must give the value, number types and refusal text nlohmann's parser gives, and inspect_observation the
// verdict and working directory of nlohmann's SAX scan. Any difference aborts.
#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {
namespace common = actionhost::common;

bool same_value(const nlohmann::json &a, const nlohmann::json &b) {
    if (a.type() != b.type() || a.size() != b.size()) return false;
    if (a.is_object()) {
        for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
            if (it.key() != jt.key() || !same_value(it.value(), jt.value())) return false;
        return true;
    }
    if (a.is_array()) {
        for (size_t i = 0; i < a.size(); ++i)
            if (!same_value(a[i], b[i])) return false;
        return true;
    }
    return a.dump() == b.dump();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const auto fast = common::parse_json(text);
    const auto exact = common::detail::parse_json_with_nlohmann_only(text);
    if (bool(fast) != bool(exact)) std::abort();
    if (fast && !same_value(fast.value(), exact.value())) std::abort();
    if (!fast && fast.error().message != exact.error().message) std::abort();

    const auto facts = common::inspect_observation(text);
    const auto scanned = common::detail::inspect_observation_with_nlohmann_only(text);
    if (bool(facts) != bool(scanned)) std::abort();
    if (facts && facts.value().working_dir != scanned.value().working_dir) std::abort();
    if (!facts && facts.error().message != scanned.error().message) std::abort();
    return 0;
}
