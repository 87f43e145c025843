// A BrowserGym action string as an agent writes it (browse_interactive's browser_actions).
#include <cstdint>
#include <string_view>

#include "action_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto r = actionhost::browser::parse_actions(std::string_view(reinterpret_cast<const char *>(data), size));
    if (!r) return 0;
    for (const auto &call : r.value()) {
        for (const auto &a : call.args) (void)a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        for (const auto &kv : call.kwargs) (void)kv.second.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return 0;
}
