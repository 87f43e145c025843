// `[sandbox] lifetime`, `idle_timeout` and `idle_action`, checked once for every backend that keeps them
// (the sandbox's ah-sandbox-init, the local and docker backends' keepers: docs/runtimes.md, "Lifetimes"),
// before anything is started, and handed to whichever process keeps the time as the same options.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace actionhost::lifetime {

// The longest lifetime, idle timeout or extension (ten years): beyond it a deadline means "never",
// which leaving the key unset says.
inline constexpr long kMaxLifetimeSeconds = 10L * 366 * 24 * 3600;

// The three keys as the configuration renders them; nullopt: unset.
struct LifetimeKeys {
    std::optional<std::string> lifetime, idle_timeout, idle_action;
};

struct LifetimePlan {
    long lifetime_s = 0;      // 0: none
    long idle_timeout_s = 0;  // 0: none
    std::string idle_action = "pause";
    bool any() const { return lifetime_s > 0 || idle_timeout_s > 0; }
    // "--lifetime N", "--idle-timeout N --idle-action A": what ah-sandbox-init and the keepers take.
    std::vector<std::string> args() const;
};

// Throws std::runtime_error with a sentence naming the key: not a whole number, negative, beyond ten
// years, an unknown action, an action without an idle timeout.
LifetimePlan plan_lifetime(const LifetimeKeys &keys);

}  // namespace actionhost::lifetime
