// The accessibility tree as BrowserGym presents it: bids recovered from the ARIA properties the
// marking script prefixed, and the tree flattened to the indented text agents read
// (browsergym.utils.obs.flatten_axtree_to_str with OpenHands' options).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::browser {

// For every CDP AX node of `nodes`: strips the "browsergym_id_<bid> " prefix from the roledescription
// (then description) property, deleting the property when nothing is left, and stores the bid as
// node["browsergym_id"].
void assign_browsergym_ids(nlohmann::json &nodes);

struct FlattenOptions {
    bool with_clickable = true;        // OpenHands: True
    bool skip_generic = false;         // OpenHands: False
    bool filter_visible_only = false;  // OpenHands: False unless the observation says so
    bool remove_redundant_static_text = true;
};

// Flattens {"nodes":[...]} (merged CDP AX nodes carrying "browsergym_id") to text: one line per node,
// TAB-indented by depth, "[bid] role 'name' value=..., attr, ...". `extra_properties` maps a bid to
// {"visibility","bbox","clickable","set_of_marks"}. Throws std::out_of_range when "nodes" is missing
// (the caller reports it as OpenHands does: "[Error encountered when processing the accessibility tree: 'nodes']").
std::string flatten_axtree_to_str(const nlohmann::json &axtree, const nlohmann::json &extra_properties,
                                  const FlattenOptions &options = {});

}  // namespace actionhost::browser
