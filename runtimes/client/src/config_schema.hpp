// The known keys of [core], [sandbox], [kubernetes] and [security]: OpenHands' fields (its OpenHandsConfig,
// SandboxConfig and KubernetesConfig) and actionhost's extensions. Other sections ([llm], [agent], ...)
// are OpenHands' too and load unchecked: nothing here reads them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace actionhost::client::detail {

enum class FieldType { Bool, Int, Float, Str, List, Dict, Any };

struct Field {
    std::string name;
    FieldType type;
    nlohmann::json default_value;  // null = unset
    bool nullable = true;          // null / absent allowed
    bool used = true;              // false: an OpenHands key accepted so its config.toml loads, unused here
};

const std::vector<Field> &core_fields();
const std::vector<Field> &sandbox_fields();
const std::vector<Field> &kubernetes_fields();
// [security]: OpenHands' SecurityConfig and actionhost's policy keys, passed to the host as
// `--set security.KEY=VALUE` (the host's policy stage reads them).
const std::vector<Field> &security_fields();
const char *type_name(FieldType t);

// The [sandbox] keys only a backend can honour (names after "sandbox."): each backend's manifest names
// those it does ("sandbox_keys"), and the client refuses the others when they are set, naming the backend
// (runtime.cpp). The rest of [sandbox] is the client library's for every backend (keep_runtime_alive,
// timeout, runtime_startup_env_vars, selected_repo, ...) or the network keys, which have a check of their
// own (a manifest's "network_keys").
const std::vector<std::string> &backend_sandbox_keys();

}  // namespace actionhost::client::detail
