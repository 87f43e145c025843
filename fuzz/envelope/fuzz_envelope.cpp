// The /execute_action body as the host reads it: JSON with the depth limit, the envelope checks of
// api.cpp, parse_envelope's normalisation, then the checks of a declaration (the host's own `read`, and
// one declaring every argument type) and the normalised form plugins receive.
#include <actionhost/common/json_io.hpp>

#include <cstdint>
#include <string_view>

#include "actions/envelope.hpp"
#include "actions/file_actions.hpp"

namespace {
const std::vector<actionhost::modules::ActionSpec> &specs() {
    static const auto s = [] {
        auto all = actionhost::modules::parse_action_specs(nlohmann::ordered_json::parse(R"({"typed":{"args":{
            "s":{"type":"string","required":true},"b":{"type":"boolean","default":false},"i":{"type":"integer","default":0},
            "n":{"type":"number","default":1.5},"o":{"type":["object","null"],"default":null},"a":{"type":"array","default":[]},
            "any":{}}}})")).value();
        for (const auto &h : actionhost::host::host_action_specs()) all.push_back(h);
        return all;
    }();
    return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace actionhost;
    auto parsed = common::parse_json(std::string_view(reinterpret_cast<const char *>(data), size));
    if (!parsed) return 0;
    const nlohmann::json &j = parsed.value();
    (void)common::dump_json(j);
    if (!j.is_object() || !j.contains("action") || !j.at("action").is_object()) return 0;
    auto r = host::parse_envelope(j.at("action"));
    if (!r) return 0;
    for (const auto &spec : specs()) {
        if (!spec.matches(r.value().args)) continue;
        nlohmann::json args = r.value().args;
        if (spec.validate(args, host::shared_action_args())) (void)common::dump_json(args);
    }
    (void)common::dump_json(std::move(r).value().normalised());
    (void)host::is_client_only_action(r.value().action);
    return 0;
}
