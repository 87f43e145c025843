// The egress policy of a connected runtime's sandbox (actionhost.runtime_network/1).
#include <actionhost/ext/runtime_network.h>

#include <actionhost/common/json_io.hpp>

#include <stdexcept>

#include "runtime_impl.hpp"

namespace actionhost::client {

nlohmann::json Runtime::Impl::network_answer(const std::string &text) {
    auto parsed = common::parse_json(text);
    if (!parsed || !parsed.value().is_object()) throw RuntimeError("Runtime " + runtime_name + " described its egress policy as something not JSON");
    return parsed.value();
}

const ah_ext_runtime_network_t &Runtime::Impl::network_extension() {
    if (!connected) throw RuntimeError("the egress policy needs a connected runtime");
    const auto *ext = static_cast<const ah_ext_runtime_network_t *>(runtime->get_extension(runtime, AH_EXT_RUNTIME_NETWORK));
    if (ext == nullptr || ext->struct_size < sizeof(ah_ext_runtime_network_t)) throw RuntimeError("Runtime " + runtime_name + " has no egress policy");
    return *ext;
}

nlohmann::json Runtime::network_policy() {
    Impl &s = *impl_;
    const auto &ext = s.network_extension();
    char *text = nullptr;
    const ah_status_t st = ext.get_policy(s.runtime, &text);
    const std::string answer = s.take_string(ext, text);
    s.check(st, "read its egress policy");
    return s.network_answer(answer);
}

nlohmann::json Runtime::change_network_policy(const EgressChange &change) {
    Impl &s = *impl_;
    const auto &ext = s.network_extension();
    const nlohmann::json request{{"allow", change.allow}, {"deny", change.deny}, {"remove", change.remove}};
    char *text = nullptr;
    const ah_status_t st = ext.change_policy(s.runtime, common::dump_json(request).c_str(), &text);
    const std::string answer = s.take_string(ext, text);
    s.check_request(st, "change its egress policy");
    return s.network_answer(answer);
}

}  // namespace actionhost::client
