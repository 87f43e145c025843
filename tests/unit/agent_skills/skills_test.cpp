// The agent skills' printed output (file_ops.py formats) and per-state navigation.
#include <gtest/gtest.h>

#include <string>

#include "skills.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::agent_skills {
namespace {

using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using nlohmann::json;

std::string numbered(int from, int to) {
    std::string out;
    for (int i = from; i <= to; ++i) out += std::to_string(i) + "|line " + std::to_string(i) + "\n";
    return out;
}

struct SkillsTest : ::testing::Test {
    TempDir dir{"ah-skills"};
    Editor editor{dir.path(), editor_path_policy("")};
    SkillState state;
    SkillContext ctx{dir.path(), &editor};
    std::string run(const std::string &name, const json &args = json::object()) { return run_skill(state, ctx, name, args); }
    void SetUp() override {
        std::string text;
        for (int i = 1; i <= 250; ++i) text += "line " + std::to_string(i) + "\n";
        write_file(dir / "big.txt", text);
        write_file(dir / "small.py", "def f():\n    return 1\n");
    }
};

TEST_F(SkillsTest, OpenFileShowsAWindowOfOneHundredLines) {
    const std::string abs = dir / "big.txt";
    EXPECT_EQ(run("open_file", {{"path", "big.txt"}}),
              "[File: " + abs + " (250 lines total)]\n(this is the beginning of the file)\n" + numbered(1, 100) +
                  "(150 more lines below)\n[Use `scroll_down` to view the next 100 lines of the file!]\n");
    // scroll_* show CURRENT_LINE .. CURRENT_LINE+100 (101 lines) unless that reaches the end, as file_ops.py does.
    EXPECT_EQ(run("scroll_down"), "[File: " + abs + " (250 lines total)]\n(100 more lines above)\n" + numbered(101, 201) + "(49 more lines below)\n");
    EXPECT_EQ(run("scroll_down"), "[File: " + abs + " (250 lines total)]\n(150 more lines above)\n" + numbered(151, 250) + "(this is the end of the file)\n");
    EXPECT_EQ(run("scroll_up"), "[File: " + abs + " (250 lines total)]\n(100 more lines above)\n" + numbered(101, 201) + "(49 more lines below)\n");
    EXPECT_EQ(run("goto_line", {{"line_number", 150}}), "[File: " + abs + " (250 lines total)]\n(99 more lines above)\n" + numbered(100, 200) + "(50 more lines below)\n");
    EXPECT_EQ(run("goto_line", {{"line_number", 999}}), "ERROR: Line number must be between 1 and 250.\n");
    EXPECT_EQ(run("open_file", {{"path", "big.txt"}, {"line_number", 0}}), "ERROR: Line number must be between 1 and 250\n");
    EXPECT_EQ(run("open_file", json::array({"small.py"})),
              "[File: " + (dir / "small.py") + " (2 lines total)]\n(this is the beginning of the file)\n1|def f():\n2|    return 1\n(this is the end of the file)\n");
    EXPECT_EQ(run("open_file", {{"path", "nope.txt"}}), "ERROR: File nope.txt not found.\n");
}

TEST_F(SkillsTest, NavigationNeedsAnOpenFile) {
    EXPECT_EQ(run("scroll_down"), "ERROR: No file open. Use the open_file function first.\n");
    EXPECT_EQ(run("goto_line", {{"line_number", 1}}), "ERROR: No file open. Use the open_file function first.\n");
    EXPECT_EQ(run("search_file", {{"search_term", "x"}}), "ERROR: No file specified or open. Use the open_file function first.\n");
}

TEST_F(SkillsTest, Searches) {
    write_file(dir / "sub/a.txt", "needle here\nnothing\n  needle again  \n");
    write_file(dir / "sub/.hidden.txt", "needle\n");
    EXPECT_EQ(run("search_dir", {{"search_term", "needle"}, {"dir_path", "sub"}}),
              "[Found 2 matches for \"needle\" in sub]\nsub/a.txt (Line 1): needle here\nsub/a.txt (Line 3): needle again\n[End of matches for \"needle\" in sub]\n");
    EXPECT_EQ(run("search_dir", {{"search_term", "zzz"}}), "No matches found for \"zzz\" in ./\n");
    EXPECT_EQ(run("search_dir", {{"search_term", "x"}, {"dir_path", "missing"}}), "ERROR: Directory missing not found\n");
    EXPECT_EQ(run("search_file", {{"search_term", "line 25"}, {"file_path", "big.txt"}}),
              "[Found 2 matches for \"line 25\" in big.txt]\nLine 25: line 25\nLine 250: line 250\n[End of matches for \"line 25\" in big.txt]\n");
    EXPECT_EQ(run("search_file", {{"search_term", "qq"}, {"file_path", "big.txt"}}), "[No matches found for \"qq\" in big.txt]\n");
    EXPECT_EQ(run("find_file", {{"file_name", "a.t"}}), "[Found 1 matches for \"a.t\" in ./]\n./sub/a.txt\n[End of matches for \"a.t\" in ./]\n");
    EXPECT_EQ(run("find_file", {{"file_name", "none"}}), "[No matches found for \"none\" in ./]\n");
}

TEST_F(SkillsTest, BadCallsPrintErrors) {
    EXPECT_EQ(run("nope").rfind("ERROR: Unknown skill 'nope'.", 0), 0u);
    EXPECT_EQ(run("open_file", json::object()), "ERROR: open_file: missing required argument 'path'\n");
    EXPECT_EQ(run("goto_line", {{"line_number", 1}, {"extra", 2}}), "ERROR: goto_line: got an unexpected keyword argument 'extra'\n");
}

TEST_F(SkillsTest, FileEditorPrintsTheMarkedJsonBlock) {
    const std::string out = run("file_editor", {{"command", "view"}, {"path", dir / "small.py"}});
    ASSERT_EQ(out.rfind("<oh_aci_output_", 0), 0u);
    const size_t gt = out.find(">\n");
    const std::string hex = out.substr(15, gt - 15);
    EXPECT_EQ(hex.size(), 32u);
    const std::string tail = "\n</oh_aci_output_" + hex + ">\n";
    ASSERT_TRUE(out.ends_with(tail));
    const json j = json::parse(out.substr(gt + 2, out.size() - gt - 2 - tail.size()));
    EXPECT_EQ(j["output"], "Here's the result of running `cat -n` on " + (dir / "small.py") + ":\n     1\tdef f():\n     2\t    return 1\n     3\t\n");
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_EQ(j["formatted_output_and_error"], j["output"]);
    EXPECT_EQ(j["path"], dir / "small.py");
    const std::string err = run("file_editor", {{"command", "view"}, {"path", "rel"}});
    EXPECT_NE(err.find("\"formatted_output_and_error\":\"ERROR:\\nInvalid `path` parameter: rel."), std::string::npos) << err;
}

}  // namespace
}  // namespace actionhost::agent_skills
