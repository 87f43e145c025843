#include "axtree.hpp"

#include <cctype>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <actionhost/common/python_repr.hpp>

namespace actionhost::browser {

using common::python_repr;
using common::python_repr_float;
using common::python_repr_string;
using common::python_strip;
namespace {

// "browsergym_id_<bid>" then an optional space, then the page's own text ('.' stops at newlines, as in
// Python's re without DOTALL).
bool split_marker(const std::string &value, std::string &bid, std::string &rest) {
    // Hand-written rather than std::regex: page-controlled text can be long, and libstdc++'s regex
    // recurses per character.
    static const std::string kPrefix = "browsergym_id_";
    if (value.compare(0, kPrefix.size(), kPrefix) != 0) return false;
    size_t i = kPrefix.size();
    while (i < value.size() && std::isalnum(static_cast<unsigned char>(value[i]))) ++i;
    if (i == kPrefix.size()) return false;
    size_t rest_at = i;
    if (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) rest_at = i + 1;
    // '.' in the Python pattern does not match a newline: such a value does not full-match.
    if (value.find('\n', rest_at) != std::string::npos) return false;
    bid = value.substr(kPrefix.size(), i - kPrefix.size());
    rest = value.substr(rest_at);
    return true;
}

std::string take_marker(nlohmann::json &node, const char *property) {
    if (!node.contains("properties") || !node["properties"].is_array()) return "";
    auto &props = node["properties"];
    for (size_t i = 0; i < props.size(); ++i) {
        auto &p = props[i];
        if (!p.is_object() || p.value("name", "") != property) continue;
        if (!p.contains("value") || !p["value"].contains("value") || !p["value"]["value"].is_string()) continue;
        std::string bid, rest;
        if (!split_marker(p["value"]["value"].get<std::string>(), bid, rest)) continue;
        if (rest.empty())
            props.erase(i);
        else
            p["value"]["value"] = rest;
        return bid;
    }
    return "";
}

const std::vector<std::string> kIgnoredRoles = {"LineBreak"};
const std::vector<std::string> kIgnoredProperties = {"editable", "readonly", "level", "settable",
                                                     "multiline", "invalid", "focusable"};

bool contains(const std::vector<std::string> &v, const std::string &s) {
    for (const auto &x : v)
        if (x == s) return true;
    return false;
}

std::string json_str(const nlohmann::json &j) { return j.is_string() ? j.get<std::string>() : python_repr(j); }

bool truthy(const nlohmann::json &v) {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_string()) return !v.get_ref<const std::string &>().empty();
    if (v.is_number()) return v.get<double>() != 0;
    if (v.is_null()) return false;
    return !v.empty();
}

class Flattener {
  public:
    Flattener(const nlohmann::json &nodes, const nlohmann::json &extra, const FlattenOptions &o)
        : nodes_(nodes), extra_(extra), opt_(o), on_path_(nodes.size(), false) {
        for (size_t i = 0; i < nodes_.size(); ++i) {
            const auto &id = nodes_[i]["nodeId"];
            index_[json_str(id)] = i;  // a later duplicate wins, as in a Python dict
        }
    }

    std::string dfs(size_t idx, int depth, bool parent_filtered, const std::string &parent_name) {
        std::string tree;
        // A malformed tree (a child pointing back at an ancestor) must not recurse forever, and depth
        // must stay bounded: such children are not entered again.
        if (on_path_[idx] || depth > 512) return tree;
        on_path_[idx] = true;
        const auto &node = nodes_[idx];
        bool skip = false;
        bool filter = false;
        std::string role = node.contains("role") && node["role"].contains("value") ? json_str(node["role"]["value"]) : "";
        std::string name;
        if (contains(kIgnoredRoles, role) || !node.contains("name")) {
            skip = true;
        } else {
            const auto &nv = node["name"].contains("value") ? node["name"]["value"] : nlohmann::json("");
            name = json_str(nv);
            const nlohmann::json *value = nullptr;
            if (node.contains("value") && node["value"].is_object() && node["value"].contains("value"))
                value = &node["value"]["value"];
            std::string bid;
            bool has_bid = node.contains("browsergym_id") && node["browsergym_id"].is_string();
            if (has_bid) bid = node["browsergym_id"].get<std::string>();

            std::vector<std::string> attrs;
            if (node.contains("properties") && node["properties"].is_array()) {
                for (const auto &p : node["properties"]) {
                    if (!p.is_object() || !p.contains("value") || !p["value"].is_object() || !p["value"].contains("value"))
                        continue;
                    std::string pname = p.value("name", "");
                    const auto &pv = p["value"]["value"];
                    if (contains(kIgnoredProperties, pname)) continue;
                    if (pname == "required" || pname == "focused" || pname == "atomic") {
                        if (truthy(pv)) attrs.push_back(pname);
                    } else {
                        attrs.push_back(pname + "=" + python_repr(pv));
                    }
                }
            }
            if (opt_.skip_generic && role == "generic" && attrs.empty()) skip = true;
            if (role == "StaticText") {
                if (parent_filtered)
                    skip = true;
                else if (opt_.remove_redundant_static_text && parent_name.find(name) != std::string::npos)
                    skip = true;
            } else {
                std::vector<std::string> extra_attrs;
                if (has_bid && extra_.is_object() && extra_.contains(bid)) {
                    const auto &ep = extra_[bid];
                    double vis = ep.contains("visibility") && ep["visibility"].is_number() ? ep["visibility"].get<double>() : 0.0;
                    if (opt_.filter_visible_only && vis < 0.5) filter = true;
                    if (opt_.with_clickable && ep.contains("clickable") && truthy(ep["clickable"]))
                        extra_attrs.insert(extra_attrs.begin(), "clickable");
                }
                skip = skip || filter;
                attrs.insert(attrs.begin(), extra_attrs.begin(), extra_attrs.end());
            }
            if (!skip) {
                std::string line;
                if (role == "generic" && name.empty())
                    line = role;
                else
                    line = role + " " + python_repr_string(python_strip(name));
                if (has_bid) line = "[" + bid + "] " + line;
                if (value != nullptr) line += " value=" + python_repr(*value);
                for (const auto &a : attrs) line += ", " + a;
                tree += std::string(static_cast<size_t>(depth), '\t') + line;
            }
        }
        if (node.contains("childIds") && node["childIds"].is_array()) {
            std::string self_id = json_str(node["nodeId"]);
            for (const auto &cid : node["childIds"]) {
                std::string child_id = json_str(cid);
                auto it = index_.find(child_id);
                if (it == index_.end() || child_id == self_id) continue;
                int child_depth = skip ? depth : depth + 1;
                std::string child = dfs(it->second, child_depth, filter, name);
                if (!child.empty()) {
                    if (!tree.empty()) tree += "\n";
                    tree += child;
                }
            }
        }
        on_path_[idx] = false;
        return tree;
    }

  private:
    const nlohmann::json &nodes_;
    const nlohmann::json &extra_;
    const FlattenOptions &opt_;
    std::unordered_map<std::string, size_t> index_;
    std::vector<bool> on_path_;
};


// CDP puts the description in the node itself ({"description":{"type":..,"value":..}}), not in
// "properties".
std::string take_description_marker(nlohmann::json &node) {
    if (!node.contains("description") || !node["description"].is_object()) return "";
    auto &d = node["description"];
    if (!d.contains("value") || !d["value"].is_string()) return "";
    std::string bid, rest;
    if (!split_marker(d["value"].get<std::string>(), bid, rest)) return "";
    if (rest.empty())
        node.erase("description");
    else
        d["value"] = rest;
    return bid;
}

}  // namespace

void assign_browsergym_ids(nlohmann::json &nodes) {
    if (!nodes.is_array()) return;
    for (auto &node : nodes) {
        if (!node.is_object()) continue;
        std::string bid = take_marker(node, "roledescription");
        std::string from_description = take_description_marker(node);
        if (bid.empty()) bid = from_description;
        node["browsergym_id"] = bid.empty() ? nlohmann::json(nullptr) : nlohmann::json(bid);
    }
}

std::string flatten_axtree_to_str(const nlohmann::json &axtree, const nlohmann::json &extra_properties,
                                  const FlattenOptions &options) {
    if (!axtree.is_object() || !axtree.contains("nodes") || !axtree["nodes"].is_array())
        throw std::out_of_range("'nodes'");
    const auto &nodes = axtree["nodes"];
    if (nodes.empty()) throw std::out_of_range("list index out of range");
    Flattener f(nodes, extra_properties, options);
    return f.dfs(0, 0, false, "");
}

}  // namespace actionhost::browser
