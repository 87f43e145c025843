// The page text shown by `browse`: the DOM rendered as Markdown the way html2text does for OpenHands
// (links kept as [text](href), images dropped, no line wrapping, head/script/style suppressed).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace actionhost::browser {

struct DomNode {
    enum class Kind { Element, Text, Other } kind = Kind::Other;
    std::string tag;  // lower-case element name
    std::vector<std::pair<std::string, std::string>> attributes;
    std::string text;  // text node value
    std::vector<DomNode> children;

    const std::string *attribute(const std::string &name) const {
        for (const auto &[k, v] : attributes)
            if (k == name) return &v;
        return nullptr;
    }
};

// Builds document 0 of a DOMSnapshot.captureSnapshot result as a tree; each iframe element gets its
// content document's tree as its children. Pseudo-elements and nodes of other kinds are kept as Other.
DomNode dom_tree_from_snapshot(const nlohmann::json &snapshot);

// Renders the tree as Markdown; an empty page gives "\n".
std::string dom_to_markdown(const DomNode &root);

}  // namespace actionhost::browser
