// A sandbox's lifetime and idle timeout (actionhost.runtime_lifetime/1), connected or not: `ahctl
// extend` and `ahctl ps` ask a kept-alive session's sandbox without attaching to it (attaching would
// resume one the idle timeout paused).
#include <actionhost/ext/runtime_lifetime.h>

#include <actionhost/common/json_io.hpp>

#include <stdexcept>

#include "runtime_impl.hpp"

namespace actionhost::client {

namespace {

const ah_ext_runtime_lifetime_t &lifetime_extension(ah_runtime_t *runtime, const std::string &runtime_name) {
    const auto *ext = static_cast<const ah_ext_runtime_lifetime_t *>(runtime->get_extension(runtime, AH_EXT_RUNTIME_LIFETIME));
    if (ext == nullptr || ext->struct_size < sizeof(ah_ext_runtime_lifetime_t))
        throw RuntimeError("Runtime " + runtime_name + " keeps no lifetime (the sandbox, local and docker runtimes keep sandbox.lifetime and idle_timeout)");
    return *ext;
}

nlohmann::json parsed_state(const std::string &text, const std::string &runtime_name) {
    auto parsed = common::parse_json(text);
    if (!parsed || !parsed.value().is_object()) throw RuntimeError("Runtime " + runtime_name + " described its lifetime as something not JSON");
    return parsed.value();
}

}  // namespace

nlohmann::json Runtime::lifetime() {
    Impl &s = *impl_;
    const auto &ext = lifetime_extension(s.runtime, s.runtime_name);
    char *text = nullptr;
    const ah_status_t st = ext.get(s.runtime, &text);
    const std::string answer = s.take_string(ext, text);
    s.check(st, "tell its lifetime");
    return parsed_state(answer, s.runtime_name);
}

nlohmann::json Runtime::extend(long long seconds) {
    Impl &s = *impl_;
    if (seconds < 1) throw std::invalid_argument("the extension must be a positive number of seconds, not " + std::to_string(seconds));
    const auto &ext = lifetime_extension(s.runtime, s.runtime_name);
    char *text = nullptr;
    const ah_status_t st = ext.extend(s.runtime, static_cast<int64_t>(seconds), &text);
    const std::string answer = s.take_string(ext, text);
    s.check_request(st, "extend its lifetime");
    return parsed_state(answer, s.runtime_name);
}

}  // namespace actionhost::client
