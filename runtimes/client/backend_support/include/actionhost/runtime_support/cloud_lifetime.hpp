// `[sandbox] lifetime`, `idle_timeout` and `idle_action` for the cloud backends, whose provider keeps
// the time (a Modal timeout, a Runloop keep-alive time or idle policy, a Daytona auto-stop interval)
// where no client is needed — so they hold for a kept-alive sandbox as the sandbox runtime's supervisor
// holds them. Each backend maps the request onto its provider's fields and refuses what the provider
// cannot do; this is what they share: reading the keys and reporting the state.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace actionhost::runtime_support {

struct LifetimeRequest {
    long lifetime_s = 0;      // 0: none asked
    long idle_timeout_s = 0;  // 0: none asked
    std::string idle_action;  // "pause" or "stop" with an idle timeout, "" without
};

// The three keys as the configuration renders them (nullopt: unset), checked by the rules every
// backend shares (actionhost/lifetime/lifetime_plan.hpp: whole seconds, at most ten years, "pause" or "stop",
// no action without a timeout), so every backend refuses a careless value with the same sentence.
// Throws std::runtime_error naming the key.
LifetimeRequest lifetime_request(const std::optional<std::string> &lifetime, const std::optional<std::string> &idle_timeout,
                                 const std::optional<std::string> &idle_action);
// The same, the three keys read through `config` (a backend's Backend::config). Every backend reads them
// here, those that honour only some of them too (to refuse the others again, should the manifest's
// sandbox_keys ever name them by mistake): which keys a backend honours is its manifest's to say.
LifetimeRequest lifetime_request(const std::function<std::optional<std::string>(const std::string &key)> &config);

// What a provider keeps for one sandbox, as far as it can be known.
struct KeptLifetime {
    std::optional<double> lifetime_s;  // how long it may live, counted from started_at; nullopt: no end
    double started_at = 0;             // Unix seconds
    std::optional<long> idle_timeout_s;
    std::string idle_action;           // "pause" or "stop" with an idle timeout
    std::optional<double> idle_s;      // nullopt: the provider does not say how long it has been idle
    bool paused = false;               // paused by the provider (its suspend or stop), resumed on the next request
};

// The state of actionhost.runtime_lifetime/1 (sdk ext/runtime_lifetime.h): {"lifetime_s",
// "time_left_s", "expires_at", "idle_timeout_s", "idle_action", "idle_s", "paused"}, each of a part the
// sandbox does not have null. `now`: Unix seconds.
nlohmann::json kept_lifetime_json(const KeptLifetime &kept, double now);

// Unix seconds, with the fraction.
double unix_now();

}  // namespace actionhost::runtime_support
