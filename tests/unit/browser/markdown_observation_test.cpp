#include <gtest/gtest.h>

#include "dom_markdown.hpp"
#include "keyboard.hpp"
#include "observation_builder.hpp"

namespace ab = actionhost::browser;
using nlohmann::json;

namespace {

ab::DomNode el(const std::string &tag, std::vector<ab::DomNode> kids = {}, std::vector<std::pair<std::string, std::string>> attrs = {}) {
    ab::DomNode n;
    n.kind = ab::DomNode::Kind::Element;
    n.tag = tag;
    n.children = std::move(kids);
    n.attributes = std::move(attrs);
    return n;
}
ab::DomNode tx(const std::string &s) {
    ab::DomNode n;
    n.kind = ab::DomNode::Kind::Text;
    n.text = s;
    return n;
}

}  // namespace

TEST(DomMarkdown, EmptyPageIsANewline) { EXPECT_EQ(ab::dom_to_markdown(el("html", {el("head"), el("body")})), "\n"); }

TEST(DomMarkdown, Html2TextLikeRendering) {
    auto doc = el("html", {el("head", {el("title", {tx("Title")})}),
                           el("body", {el("h1", {tx("Hello  World")}), tx("\n  "),
                                       el("p", {tx("Some "), el("b", {tx("bold")}), tx(" and a "),
                                                el("a", {tx(" link ")}, {{"href", "/x?a=1"}}), tx(".")}),
                                       el("img", {}, {{"alt", "alt text"}, {"src", "i.png"}}),
                                       el("ul", {el("li", {tx("One")}), el("li", {tx("Two")})}),
                                       el("script", {tx("var hidden = 1;")}),
                                       el("div", {tx("line1"), el("br"), tx("line2")}),
                                       el("a", {tx("anchor only")}, {{"href", "#top"}})})});
    EXPECT_EQ(ab::dom_to_markdown(doc),
              "# Hello World\n\nSome **bold** and a [link](/x?a=1) .\n\n  * One\n  * Two\n\nline1  \nline2\n\nanchor only\n\n");
}

TEST(DomMarkdown, BuildsTheTreeFromADomSnapshotWithFrames) {
    json snap = json::parse(R"({
      "strings": ["#document", "HTML", "BODY", "P", "hello", "IFRAME", "#text", "inner", "href", "A", "/l"],
      "documents": [
        {"nodes": {"parentIndex": [-1, 0, 1, 2, 3, 2], "nodeType": [9, 1, 1, 1, 3, 1],
                   "nodeName": [0, 1, 2, 3, 6, 5], "nodeValue": [-1, -1, -1, -1, 4, -1],
                   "attributes": [[], [], [], [], [], []],
                   "contentDocumentIndex": {"index": [5], "value": [1]}}},
        {"nodes": {"parentIndex": [-1, 0, 1], "nodeType": [9, 1, 3],
                   "nodeName": [0, 9, 6], "nodeValue": [-1, -1, 7], "attributes": [[], [8, 10], []]}}
      ]})");
    EXPECT_EQ(ab::dom_to_markdown(ab::dom_tree_from_snapshot(snap)), "hello\n\n[inner](/l)\n\n");
}

TEST(Keyboard, SplitsCombinationsAsPlaywright) {
    EXPECT_EQ(ab::split_key_combination("Control+Shift+a"), (std::vector<std::string>{"Control", "Shift", "a"}));
    EXPECT_EQ(ab::split_key_combination("Control++"), (std::vector<std::string>{"Control", "+"}));
    EXPECT_EQ(ab::split_key_combination("+"), (std::vector<std::string>{"+"}));
    EXPECT_EQ(ab::lookup_key("Enter")->text, "\r");
    EXPECT_EQ(ab::lookup_key("A")->code, "KeyA");
    EXPECT_EQ(ab::lookup_key("ControlOrMeta")->key, "Control");
    EXPECT_FALSE(ab::lookup_key("NoSuchKey"));
    EXPECT_EQ(ab::modifier_bit("Shift"), 8);
}

TEST(ObservationBuilder, InteractiveErrorLayoutAndBrokenTree) {
    ab::BrowseObservation o;
    o.trigger_by_action = "browse_interactive";
    o.error = true;
    o.last_browser_action_error = "boom";
    o.focused_element_bid = "";
    EXPECT_EQ(ab::agent_obs_text(o),
              "[Current URL: ]\n[Focused element bid: ]\n\n================ BEGIN error message ===============\n"
              "The following error occurred when executing the last action:\nboom\n================ END error message ===============\n"
              "\n[Error encountered when processing the accessibility tree: 'nodes']");
    o.focused_element_bid = nullptr;
    EXPECT_NE(ab::agent_obs_text(o).find("[Focused element bid: None]"), std::string::npos);
}

TEST(ObservationBuilder, BrowseJsonKeepsObjectsOnlyWithReturnAxtree) {
    ab::BrowseObservation o;
    o.trigger_by_action = "browse";
    o.url = "http://x/";
    o.text_content = "Hi\n\n";
    o.axtree_object = {{"nodes", json::array({{{"nodeId", "1"}}})}};
    json j = json::parse(ab::browse_observation_json(o, false));
    EXPECT_EQ(j["content"], "[Current URL: http://x/]\n============== BEGIN webpage content ==============\nHi\n\n\n============== END webpage content ==============\n");
    EXPECT_EQ(j["extras"]["axtree_object"], json::object());
    EXPECT_TRUE(j["extras"]["screenshot_path"].is_null());
    j = json::parse(ab::browse_observation_json(o, true));
    EXPECT_EQ(j["extras"]["axtree_object"]["nodes"].size(), 1u);
    std::string text = ab::browse_observation_json(o, false);
    EXPECT_LT(text.find("\"url\""), text.find("\"trigger_by_action\"")) << "extras keep OpenHands' field order";
}
