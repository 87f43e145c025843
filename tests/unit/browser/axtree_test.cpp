#include <gtest/gtest.h>

#include "axtree.hpp"
#include <actionhost/common/python_repr.hpp>

namespace ab = actionhost::browser;
using nlohmann::json;

namespace {

json prop(const std::string &name, json value) { return {{"name", name}, {"value", {{"type", "x"}, {"value", value}}}}; }

json node(const std::string &id, const std::string &role, std::optional<std::string> name, std::vector<std::string> children,
          std::vector<json> props = {}, std::optional<json> value = {}) {
    json n = {{"nodeId", id}, {"role", {{"type", "role"}, {"value", role}}}, {"childIds", children}, {"properties", props}};
    if (name) n["name"] = {{"type", "computedString"}, {"value", *name}};
    if (value) n["value"] = {{"type", "string"}, {"value", *value}};
    return n;
}

}  // namespace

TEST(PythonRepr, StringsAndNumbers) {
    EXPECT_EQ(actionhost::common::python_repr_string("abc"), "'abc'");
    EXPECT_EQ(actionhost::common::python_repr_string("it's"), "\"it's\"");
    EXPECT_EQ(actionhost::common::python_repr_string("it's \"x\""), "'it\\'s \"x\"'");
    EXPECT_EQ(actionhost::common::python_repr_string("a\\b\n\t\r"), "'a\\\\b\\n\\t\\r'");
    EXPECT_EQ(actionhost::common::python_repr_string("nb\xC2\xA0sp \xE2\x80\x8B \xC3\xA9"), "'nb\\xa0sp \\u200b \xC3\xA9'");
    EXPECT_EQ(actionhost::common::python_repr_string(std::string("\x01", 1)), "'\\x01'");
    EXPECT_EQ(actionhost::common::python_repr(json(1.0)), "1.0");
    EXPECT_EQ(actionhost::common::python_repr(json(0.35)), "0.35");
    EXPECT_EQ(actionhost::common::python_repr(json(1e16)), "1e+16");
    EXPECT_EQ(actionhost::common::python_repr(json(123456.5)), "123456.5");
    EXPECT_EQ(actionhost::common::python_repr(json(0.0001)), "0.0001");
    EXPECT_EQ(actionhost::common::python_repr(json(0.00001)), "1e-05");
    EXPECT_EQ(actionhost::common::python_repr(json(-2.5e-7)), "-2.5e-07");
    EXPECT_EQ(actionhost::common::python_repr(json(12)), "12");
    EXPECT_EQ(actionhost::common::python_repr(json(true)), "True");
    EXPECT_EQ(actionhost::common::python_repr(json(nullptr)), "None");
    EXPECT_EQ(actionhost::common::python_repr(json::parse(R"(["a", 1, false])")), "['a', 1, False]");
    EXPECT_EQ(actionhost::common::python_strip("\xC2\xA0 x y \n"), "x y");
}

TEST(AxTree, AssignsBidsFromTheAriaMarkers) {
    json nodes = json::array({
        node("1", "button", "OK", {}, {prop("roledescription", "browsergym_id_12 "), prop("focusable", true)}),
        node("2", "button", "X", {}, {prop("roledescription", "browsergym_id_13 fancy button")}),
        node("3", "generic", "", {}, {}),
        node("4", "generic", "", {}, {}),
    });
    nodes[2]["description"] = {{"type", "computedString"}, {"value", "browsergym_id_a4 my own description"}};
    nodes[3]["description"] = {{"type", "computedString"}, {"value", "browsergym_id_5 "}};
    ab::assign_browsergym_ids(nodes);
    EXPECT_EQ(nodes[0]["browsergym_id"], "12");
    EXPECT_EQ(nodes[0]["properties"].size(), 1u) << "an emptied roledescription is deleted";
    EXPECT_EQ(nodes[1]["browsergym_id"], "13");
    EXPECT_EQ(nodes[1]["properties"][0]["value"]["value"], "fancy button");
    EXPECT_EQ(nodes[2]["browsergym_id"], "a4");
    EXPECT_EQ(nodes[2]["description"]["value"], "my own description");
    EXPECT_EQ(nodes[3]["browsergym_id"], "5");
    EXPECT_FALSE(nodes[3].contains("description"));
}

TEST(AxTree, FlattensAsBrowserGymWithOpenHandsOptions) {
    json nodes = json::array({
        node("1", "RootWebArea", "Test Page", {"2"}, {prop("focused", true), prop("url", "http://127.0.0.1:8765/test.html")}),
        node("2", "generic", "", {"3", "7", "20"}),
        node("3", "heading", "Hello World", {"4"}, {prop("level", 1)}),
        node("4", "StaticText", "Hello World", {"5"}),
        node("5", "InlineTextBox", "Hello World", {}),
        node("7", "textbox", "Name", {"8"}, {prop("focusable", true), prop("focused", true), prop("required", true), prop("invalid", "false")}, json("abc")),
        node("8", "generic", "", {}),
        node("20", "combobox", "", {"21", "22"}, {prop("hasPopup", "menu"), prop("expanded", false), prop("required", false)}, json("Beta")),
        node("21", "LineBreak", "\n", {}),
        node("22", "StaticText", "it's new", {}),
    });
    nodes[1]["browsergym_id"] = "3";
    nodes[2]["browsergym_id"] = "4";
    nodes[5]["browsergym_id"] = "9";
    nodes[7]["browsergym_id"] = "11";
    json extra = {{"9", {{"visibility", 1.0}, {"bbox", {1, 2, 3, 4}}, {"clickable", true}, {"set_of_marks", true}}},
                  {"11", {{"visibility", 1.0}, {"bbox", nullptr}, {"clickable", false}, {"set_of_marks", false}}}};
    std::string text = ab::flatten_axtree_to_str({{"nodes", nodes}}, extra);
    EXPECT_EQ(text,
              "RootWebArea 'Test Page', focused, url='http://127.0.0.1:8765/test.html'\n"
              "\t[3] generic\n"
              "\t\t[4] heading 'Hello World'\n"
              "\t\t\tInlineTextBox 'Hello World'\n"
              "\t\t[9] textbox 'Name' value='abc', clickable, focused, required\n"
              "\t\t\tgeneric\n"
              "\t\t[11] combobox '' value='Beta', hasPopup='menu', expanded=False\n"
              "\t\t\tStaticText \"it's new\"");
}

TEST(AxTree, SkippedNodesKeepTheirChildrenAtTheSameDepthAndCyclesStop) {
    json nodes = json::array({
        node("1", "RootWebArea", "", {"2"}),
        {{"nodeId", "2"}, {"ignored", true}, {"role", {{"value", "none"}}}, {"childIds", {"3", "2", "999"}}},
        node("3", "link", " spaced name ", {"1"}),
    });
    nodes[2]["browsergym_id"] = "7";
    std::string text = ab::flatten_axtree_to_str({{"nodes", nodes}}, json::object());
    // The link's child points back at the root: it is not entered again.
    EXPECT_EQ(text, "RootWebArea ''\n\t[7] link 'spaced name'");
}

TEST(AxTree, FilterVisibleOnlyDropsHiddenElements) {
    json nodes = json::array({node("1", "RootWebArea", "R", {"2", "3"}), node("2", "button", "Seen", {}), node("3", "button", "Hidden", {"4"}),
                              node("4", "StaticText", "inside", {})});
    nodes[1]["browsergym_id"] = "1";
    nodes[2]["browsergym_id"] = "2";
    json extra = {{"1", {{"visibility", 1.0}, {"clickable", true}}}, {"2", {{"visibility", 0.0}, {"clickable", true}}}};
    ab::FlattenOptions o;
    o.filter_visible_only = true;
    EXPECT_EQ(ab::flatten_axtree_to_str({{"nodes", nodes}}, extra, o), "RootWebArea 'R'\n\t[1] button 'Seen', clickable");
}

TEST(AxTree, MissingNodesIsAKeyError) {
    try {
        ab::flatten_axtree_to_str(json::object(), json::object());
        FAIL();
    } catch (const std::out_of_range &e) {
        EXPECT_STREQ(e.what(), "'nodes'");
    }
}
