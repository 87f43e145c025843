// Which plugins the host runs out of its process, and how: the manifest's "isolation": "process", or
// host.isolate (names separated by commas) for any plugin; host.isolate_timeout_s for the deadline of a
// call whose action has no timeout of its own (docs/configuration.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <actionhost/common/result.hpp>
#include <actionhost/modules/manifest.hpp>
#include <actionhost/modules/registry.hpp>

#include "modules/host_environment.hpp"
#include "modules/isolated_plugin.hpp"

namespace actionhost::host {

struct IsolationConfig {
    std::vector<std::string> names;  // host.isolate
    std::chrono::seconds timeout{600};
};

// Reads and checks the keys: a name that is not an installed plugin, or a timeout that is not a positive
// number of seconds, is refused with the key named.
common::Result<IsolationConfig> read_isolation_config(HostEnvironment &env, const modules::ModuleRegistry &registry);

bool is_isolated(const modules::Manifest &m, const IsolationConfig &config);

// The worker's settings for `m`, from the host's as they are now (read when the plugin loads: the keys
// the host set for it, "needs.*", included).
IsolationSettings isolation_settings_for(const modules::Manifest &m, HostEnvironment &env, const IsolationConfig &config);

}  // namespace actionhost::host
