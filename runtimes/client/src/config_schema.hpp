// The known keys of [core] and [sandbox]: OpenHands' fields (spec §7) and actionhost's extensions.
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
};

const std::vector<Field> &core_fields();
const std::vector<Field> &sandbox_fields();
const char *type_name(FieldType t);

}  // namespace actionhost::client::detail
