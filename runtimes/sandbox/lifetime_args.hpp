// `[sandbox] lifetime`, `idle_timeout` and `idle_action` as ah-sandbox-init's options: checked as every
// backend checks them (actionhost/lifetime/lifetime_plan.hpp) and with the sandbox's own rule, before
// anything is made, and kept by ah-sandbox-init outside the sandbox (actionhost/lifetime/lifetime_keeper.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace actionhost::sandbox_runtime {

struct LifetimeConfig {
    std::optional<std::string> lifetime, idle_timeout, idle_action;  // as the configuration renders them; nullopt: unset
    bool host_network = false;  // network = "host": requests do not pass through ah-sandbox-init
};

// The options ("--lifetime", "N", ...), none for a sandbox without either. Throws std::runtime_error
// with a sentence naming the key: not a whole number, negative, beyond ten years, an unknown action,
// an idle timeout with the machine's network.
std::vector<std::string> lifetime_args(const LifetimeConfig &config);

}  // namespace actionhost::sandbox_runtime
