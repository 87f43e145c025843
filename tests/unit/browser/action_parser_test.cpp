#include <gtest/gtest.h>

#include "action_parser.hpp"
#include "action_signatures.hpp"

namespace ab = actionhost::browser;
using nlohmann::json;

namespace {
// The refusal's text; "" when the code parsed (an expectation on the text then fails).
std::string why(const actionhost::common::Result<std::vector<ab::ParsedCall>> &r) { return r ? std::string() : r.error().message; }
}  // namespace

TEST(ActionParser, SingleCallWithPositionalAndKeywordArguments) {
    auto r = ab::parse_actions("click('12', button=\"right\", modifiers=['Shift', 'Control'])");
    ASSERT_TRUE(r) << why(r);
    ASSERT_EQ(r.value().size(), 1u);
    EXPECT_EQ(r.value()[0].name, "click");
    EXPECT_EQ(r.value()[0].args, std::vector<json>{json("12")});
    ASSERT_EQ(r.value()[0].kwargs.size(), 2u);
    EXPECT_EQ(r.value()[0].kwargs[0].first, "button");
    EXPECT_EQ(r.value()[0].kwargs[0].second, "right");
    EXPECT_EQ(r.value()[0].kwargs[1].second, json({"Shift", "Control"}));
}

TEST(ActionParser, SeveralCallsSeparatedByNewlinesSemicolonsAndComments) {
    auto r = ab::parse_actions("# fill the form\nfill('5', 'a') ; fill('6', 'b')  # trailing\n\n  click('7')\n");
    ASSERT_TRUE(r) << why(r);
    ASSERT_EQ(r.value().size(), 3u);
    EXPECT_EQ(r.value()[0].name, "fill");
    EXPECT_EQ(r.value()[1].args[1], "b");
    EXPECT_EQ(r.value()[2].name, "click");
    EXPECT_EQ(r.value()[2].line, 4);
    EXPECT_EQ(r.value()[2].column, 3);
}

TEST(ActionParser, StringEscapesAndQuoteStyles) {
    auto r = ab::parse_actions(R"(fill('1', "it's \"x\"\n\t\\ \x41\u00e9\U0001F600 \q") ; fill('2', '''multi
line''' "concat"))");
    ASSERT_TRUE(r) << why(r);
    ASSERT_EQ(r.value().size(), 2u);
    EXPECT_EQ(r.value()[0].args[1], "it's \"x\"\n\t\\ A\xC3\xA9\xF0\x9F\x98\x80 \\q");
    EXPECT_EQ(r.value()[1].args[1], "multi\nlineconcat");
}

TEST(ActionParser, NumbersBooleansNoneListsTuplesDicts) {
    auto r = ab::parse_actions("f(1, -2, 3.5, 1e3, -0.25, True, False, None, [1, [2]], (3,), (4), {'a': 1,}, [],)");
    ASSERT_TRUE(r) << why(r);
    const auto &a = r.value()[0].args;
    ASSERT_EQ(a.size(), 13u);
    EXPECT_TRUE(a[0].is_number_integer());
    EXPECT_EQ(a[1], -2);
    EXPECT_TRUE(a[2].is_number_float());
    EXPECT_EQ(a[3], 1000.0);
    EXPECT_EQ(a[4], -0.25);
    EXPECT_EQ(a[5], true);
    EXPECT_EQ(a[6], false);
    EXPECT_TRUE(a[7].is_null());
    EXPECT_EQ(a[8], json::parse("[1,[2]]"));
    EXPECT_EQ(a[9], json::parse("[3]"));
    EXPECT_EQ(a[10], 4);
    EXPECT_EQ(a[11], json::parse(R"({"a":1})"));
    EXPECT_EQ(a[12], json::array());
}

TEST(ActionParser, ArgumentsSpanLinesInsideBrackets) {
    auto r = ab::parse_actions("select_option(\n  '3',\n  ['a',\n   'b'],\n)");
    ASSERT_TRUE(r) << why(r);
    EXPECT_EQ(r.value()[0].args[1], json({"a", "b"}));
}

TEST(ActionParser, EmptyActionsAsBrowserGymReportsThem) {
    EXPECT_EQ(why(ab::parse_actions("")), "ValueError: Received an empty action.");
    EXPECT_EQ(why(ab::parse_actions("  \n# click('5')\n")), "ValueError: Received an empty action.");
    EXPECT_EQ(why(ab::parse_actions("hello")), "ValueError: Received an empty action.");
}

TEST(ActionParser, SyntaxErrorsNameTheProblemAndPlace) {
    auto r = ab::parse_actions("click('1'");
    EXPECT_EQ(why(r).rfind("SyntaxError: ", 0), 0u) << why(r);
    EXPECT_FALSE(r);
    r = ab::parse_actions("click(bid)");
    EXPECT_EQ(why(r), "SyntaxError: arguments must be literal values (strings, numbers, True/False/None, lists), got name 'bid' (line 1, column 7)");
    r = ab::parse_actions("click(button='left', '1')");
    EXPECT_NE(why(r).find("positional argument follows keyword argument"), std::string::npos) << why(r);
    r = ab::parse_actions("click('1', button='l', button='r')");
    EXPECT_NE(why(r).find("keyword argument repeated: button"), std::string::npos) << why(r);
    r = ab::parse_actions("fill('1', 'unterminated)");
    EXPECT_NE(why(r).find("unterminated string literal"), std::string::npos) << why(r);
    r = ab::parse_actions("click('1') click('2')");
    EXPECT_NE(why(r).find("expected a newline or ';'"), std::string::npos) << why(r);
    r = ab::parse_actions("page.click('1')");
    EXPECT_NE(why(r).find("not actions"), std::string::npos) << why(r);
    r = ab::parse_actions("fill('1', r'raw')");
    EXPECT_NE(why(r).find("string prefix 'r'"), std::string::npos) << why(r);
}

TEST(ActionParser, DeepNestingIsRefusedNotRecursedForever) {
    std::string deep = "f(" + std::string(5000, '[') + std::string(5000, ']') + ")";
    auto r = ab::parse_actions(deep);
    EXPECT_NE(why(r).find("nested too deeply"), std::string::npos) << why(r).substr(0, 200);
}

TEST(ActionSignatures, BindsLikePython) {
    auto b = ab::bind_call(ab::parse_actions("click('4')").value()[0]);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b.value().args.at("bid"), "4");
    EXPECT_EQ(b.value().args.at("button"), "left");
    EXPECT_EQ(b.value().args.at("modifiers"), json::array());
    b = ab::bind_call(ab::parse_actions("noop()").value()[0]);
    ASSERT_TRUE(b);
    EXPECT_EQ(b.value().args.at("wait_ms"), 1000);
    b = ab::bind_call(ab::parse_actions("scroll(delta_y=3, delta_x=-1)").value()[0]);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b.value().args.at("delta_x"), -1);
}

TEST(ActionSignatures, PythonTypeErrors) {
    auto fail = [](const std::string &code) {
        auto b = ab::bind_call(ab::parse_actions(code).value().at(0));
        EXPECT_FALSE(b) << code;
        return b ? std::string() : b.error().message;
    };
    EXPECT_EQ(fail("fill('1')"), "TypeError: fill() missing 1 required positional argument: 'value'");
    EXPECT_EQ(fail("fill()"), "TypeError: fill() missing 2 required positional arguments: 'bid' and 'value'");
    EXPECT_EQ(fail("hover('1', '2')"), "TypeError: hover() takes 1 positional argument but 2 were given");
    EXPECT_EQ(fail("go_back(1)"), "TypeError: go_back() takes 0 positional arguments but 1 was given");
    EXPECT_EQ(fail("click('1', 'left', [], 4)"), "TypeError: click() takes from 1 to 3 positional arguments but 4 were given");
    EXPECT_EQ(fail("click('1', foo=2)"), "TypeError: click() got an unexpected keyword argument 'foo'");
    EXPECT_EQ(fail("click('1', bid='2')"), "TypeError: click() got multiple values for argument 'bid'");
    EXPECT_EQ(fail("mouse_click(1, 1)"), "NameError: Invalid action type 'mouse_click'.");
    EXPECT_EQ(fail("check('1')"), "NameError: Invalid action type 'check'.");
}

TEST(ActionSignatures, KnownActionSet) {
    for (const char *n : {"goto", "go_back", "go_forward", "noop", "scroll", "fill", "select_option", "click", "dblclick",
                          "hover", "press", "focus", "clear", "drag_and_drop", "upload_file", "send_msg_to_user",
                          "report_infeasible", "new_tab", "tab_close", "tab_focus"})
        EXPECT_TRUE(ab::is_known_action(n)) << n;
    EXPECT_FALSE(ab::is_known_action("keyboard_press"));
}
