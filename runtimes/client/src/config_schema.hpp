// The known keys of [core], [sandbox] and [kubernetes]: OpenHands' fields (its OpenHandsConfig,
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
const char *type_name(FieldType t);

}  // namespace actionhost::client::detail
