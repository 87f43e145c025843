// The editor core against openhands-aci's exact texts, without HTTP (the integration tests repeat
// OpenHands' test_aci_edit.py cases over the wire).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <string>

#include "editor.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::agent_skills {
namespace {

using actionhost::testing::read_file;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;

struct EditorTest : ::testing::Test {
    TempDir dir{"ah-editor"};
    Editor editor{dir.path(), editor_path_policy("")};
    EditorResult run(const std::string &command, const std::string &path, EditorRequest extra = {}) {
        extra.command = command;
        extra.path = path;
        return editor.run(extra);
    }
};

TEST_F(EditorTest, ViewNumbersLinesLikeCatN) {
    write_file(dir / "a.txt", "one\ntwo\n");
    auto r = run("view", dir / "a.txt");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.output, "Here's the result of running `cat -n` on " + (dir / "a.txt") + ":\n     1\tone\n     2\ttwo\n     3\t\n");
    EXPECT_TRUE(r.prev_exist);
    EXPECT_FALSE(r.old_content.has_value());
}

TEST_F(EditorTest, ViewRangeChecksAndClampNote) {
    write_file(dir / "a.txt", "l1\nl2\nl3\n");
    const std::string p = dir / "a.txt";
    EditorRequest req;
    req.view_range = nlohmann::json::array({2, 3});
    EXPECT_EQ(run("view", p, req).output, "Here's the result of running `cat -n` on " + p + ":\n     2\tl2\n     3\tl3\n");
    req.view_range = nlohmann::json::array({2, -1});
    EXPECT_EQ(run("view", p, req).output, "Here's the result of running `cat -n` on " + p + ":\n     2\tl2\n     3\tl3\n");
    req.view_range = nlohmann::json::array({1, 9});
    EXPECT_EQ(run("view", p, req).output, "NOTE: We only show up to 3 since there're only 3 lines in this file.\nHere's the result of running `cat -n` on " + p +
                                              ":\n     1\tl1\n     2\tl2\n     3\tl3\n");
    req.view_range = nlohmann::json::array({0, 2});
    EXPECT_EQ(run("view", p, req).error,
              "Invalid `view_range` parameter: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 3].");
    req.view_range = nlohmann::json::array({3, 2});
    EXPECT_EQ(run("view", p, req).error,
              "Invalid `view_range` parameter: [3, 2]. Its second element `2` should be greater than or equal to the first element `3`.");
    req.view_range = nlohmann::json::array({1, 2, 3});
    EXPECT_EQ(run("view", p, req).error, "Invalid `view_range` parameter: [1, 2, 3]. It should be a list of two integers.");
    req.view_range = nlohmann::json::array({1, "2"});
    EXPECT_EQ(run("view", p, req).error, "Invalid `view_range` parameter: [1, '2']. It should be a list of two integers.");
}

TEST_F(EditorTest, PathChecks) {
    EXPECT_EQ(run("view", "rel.txt").error, "Invalid `path` parameter: rel.txt. The path should be an absolute path, starting with `/`.");
    write_file(dir / "rel.txt", "x");
    EXPECT_EQ(run("view", "rel.txt").error, "Invalid `path` parameter: rel.txt. The path should be an absolute path, starting with `/`. Maybe you meant " +
                                                (dir / "rel.txt") + "?");
    EXPECT_EQ(run("view", dir / "missing").error,
              "Invalid `path` parameter: " + (dir / "missing") + ". The path " + (dir / "missing") + " does not exist. Please provide a valid path.");
    EditorRequest create;
    create.file_text = "x";
    EXPECT_EQ(run("create", dir / "rel.txt", create).error, "Invalid `path` parameter: " + (dir / "rel.txt") + ". File already exists at: " +
                                                               (dir / "rel.txt") + ". Cannot overwrite files using command `create`.");
    EXPECT_EQ(run("undo_edit", dir.path()).error, "Invalid `path` parameter: " + dir.path() + ". The path " + dir.path() +
                                                      " is a directory and only the `view` command can be used on directories.");
    write_file(dir / "d.docx", "x");
    EXPECT_EQ(run("insert", dir / "d.docx").error, "Invalid `path` parameter: " + (dir / "d.docx") + ". The path " + (dir / "d.docx") +
                                                       " points to a binary file (.docx) and only the `view` command can be used on supported binary files.");
    // pathlib normalisation of the path shown in messages
    EXPECT_EQ(run("view", dir.path() + "//missing/./").error,
              "Invalid `path` parameter: " + (dir / "missing") + ". The path " + (dir / "missing") + " does not exist. Please provide a valid path.");
    EXPECT_EQ(run("bogus", dir / "rel.txt").error,
              "Unrecognized command bogus. The allowed commands for the oh_editor tool are: view, create, str_replace, insert, undo_edit");
}

TEST_F(EditorTest, CreateStrReplaceInsertUndo) {
    const std::string p = dir / "f.txt";
    EXPECT_EQ(run("create", p).error, "Parameter `file_text` is required for command: create.");
    EditorRequest c;
    c.file_text = "Line 1\nLine 2\nLine 3\n";
    auto r = run("create", p, c);
    EXPECT_EQ(r.output, "File created successfully at: " + p);
    EXPECT_FALSE(r.prev_exist);
    EXPECT_EQ(read_file(p), "Line 1\nLine 2\nLine 3\n");

    EditorRequest s;
    s.old_str = "Line 2";
    s.new_str = "New Line 2";
    r = run("str_replace", p, s);
    EXPECT_EQ(r.output, "The file " + p + " has been edited. Here's the result of running `cat -n` on a snippet of " + p +
                            ":\n     1\tLine 1\n     2\tNew Line 2\n     3\tLine 3\n     4\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.");
    EXPECT_EQ(*r.old_content, "Line 1\nLine 2\nLine 3\n");
    EXPECT_EQ(*r.new_content, "Line 1\nNew Line 2\nLine 3\n");

    s.old_str = "Line";
    s.new_str = "X";
    EXPECT_EQ(run("str_replace", p, s).error, "No replacement was performed. Multiple occurrences of old_str `Line` in lines [1, 2, 3]. Please ensure it is unique.");
    s.old_str = "";
    EXPECT_EQ(run("str_replace", p, s).error, "No replacement was performed. Multiple occurrences of old_str `` in lines [1, 2, 3, 4]. Please ensure it is unique.");
    s.old_str = "  Line 3  \n";  // not verbatim; the stripped retry finds it
    s.new_str = " L3 ";
    r = run("str_replace", p, s);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(read_file(p), "Line 1\nNew Line 2\nL3\n");
    s.old_str = "absent";
    EXPECT_EQ(run("str_replace", p, s).error, "No replacement was performed, old_str `absent` did not appear verbatim in " + p + ".");
    s.old_str = "same";
    s.new_str = "same";
    EXPECT_EQ(run("str_replace", p, s).error, "Invalid `new_str` parameter: same. No replacement was performed. `new_str` and `old_str` must be different.");
    EXPECT_EQ(run("str_replace", p).error, "Parameter `old_str` is required for command: str_replace.");

    EditorRequest i;
    i.new_str = "ins";
    EXPECT_EQ(run("insert", p, i).error, "Parameter `insert_line` is required for command: insert.");
    i.insert_line = 10;
    EXPECT_EQ(run("insert", p, i).error, "Invalid `insert_line` parameter: 10. It should be within the range of allowed values: [0, 3]");
    i.insert_line = 1;
    i.new_str.reset();
    EXPECT_EQ(run("insert", p, i).error, "Parameter `new_str` is required for command: insert.");
    i.new_str = "";
    r = run("insert", p, i);
    EXPECT_EQ(r.output, "The file " + p + " has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tLine 1\n     2\t\n     3\tNew Line 2\n     4\tL3\n     5\t\n"
                        "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.");

    r = run("undo_edit", p);
    EXPECT_EQ(r.output, "Last edit to " + p + " undone successfully. Here's the result of running `cat -n` on " + p + ":\n     1\tLine 1\n     2\tNew Line 2\n     3\tL3\n     4\t\n");
    EXPECT_EQ(read_file(p), "Line 1\nNew Line 2\nL3\n");
    run("undo_edit", p);
    run("undo_edit", p);
    EXPECT_EQ(read_file(p), "Line 1\nLine 2\nLine 3\n");
    run("undo_edit", p);  // the create itself
    EXPECT_EQ(run("undo_edit", p).error, "No edit history found for " + p + ".");
}

TEST_F(EditorTest, UndoKeepsTenPerFile) {
    const std::string p = dir / "u.txt";
    write_file(p, "v0\n");
    for (int k = 1; k <= 12; ++k) {
        EditorRequest s;
        s.old_str = "v" + std::to_string(k - 1);
        s.new_str = "v" + std::to_string(k);
        ASSERT_TRUE(run("str_replace", p, s).ok());
    }
    int undone = 0;
    while (run("undo_edit", p).ok() && undone < 20) ++undone;
    EXPECT_EQ(undone, 10);
    EXPECT_EQ(read_file(p), "v2\n");
}

TEST_F(EditorTest, InsertAfterUnterminatedLastLineStartsANewLine) {
    const std::string p = dir / "n.txt";
    write_file(p, "a\nb");
    EditorRequest i;
    i.insert_line = 2;
    i.new_str = "c";
    ASSERT_TRUE(run("insert", p, i).ok());
    EXPECT_EQ(read_file(p), "a\nb\nc\n");
}

TEST_F(EditorTest, ClipsAt16000Characters) {
    std::string big;
    for (int k = 0; k < 16000; ++k) big += "Line 1\n";
    write_file(dir / "big.txt", big);
    auto r = run("view", dir / "big.txt");
    ASSERT_TRUE(r.ok());
    EXPECT_NE(r.output.find("<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>\n"),
              std::string::npos);
    EXPECT_LT(r.output.size(), 16000u + 16000u / 7 * 8 + 400);
}

TEST_F(EditorTest, DirectoryViewTwoLevelsWithoutHidden) {
    write_file(dir / "b.txt", "x");
    write_file(dir / "sub/c.txt", "x");
    write_file(dir / "sub/deeper/d.txt", "x");
    write_file(dir / "sub/.hid", "x");
    write_file(dir / ".hidden/e.txt", "x");
    write_file(dir / ".h2", "x");
    auto r = run("view", dir.path());
    const std::string d = dir.path();
    EXPECT_EQ(r.output, "Here's the files and directories up to 2 levels deep in " + d + ", excluding hidden items:\n" + d + "/\n" + d + "/b.txt\n" + d +
                            "/sub/\n" + d + "/sub/c.txt\n" + d + "/sub/deeper/\n\n2 hidden files/directories in this directory are excluded. You can use 'ls -la " + d +
                            "' to see them.");
    EditorRequest vr;
    vr.view_range = nlohmann::json::array({1, 2});
    EXPECT_EQ(run("view", d, vr).error, "Invalid `view_range` parameter: [1, 2]. The `view_range` parameter is not allowed when `path` points to a directory.");
}

TEST_F(EditorTest, SizeLimitAndBinaryRefusal) {
    Editor small(dir.path(), editor_path_policy(""), 1024 * 1024);
    write_file(dir / "big.txt", std::string(1024 * 1024 + 200 * 1024, 'a'));
    EditorRequest v;
    v.command = "view";
    v.path = dir / "big.txt";
    EXPECT_EQ(small.run(v).error, "File validation failed for " + (dir / "big.txt") + ": File is too large (1.2MB). Maximum allowed size is 1MB.");
    std::string bin;
    for (int k = 0; k < 2048; ++k) bin += static_cast<char>(k % 7 == 0 ? 0 : (k * 37) % 256);
    write_file(dir / "x.bin", bin);
    EXPECT_EQ(run("view", dir / "x.bin").error,
              "File validation failed for " + (dir / "x.bin") + ": File appears to be binary and this file type cannot be read or edited by this tool.");
}

TEST_F(EditorTest, KeepsEncodingAndLineEnds) {
    // "Привет мир\nвторая строка\n" in Windows-1251
    const std::string cp1251 = "\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0\r\n\xe2\xf2\xee\xf0\xe0\xff \xf1\xf2\xf0\xee\xea\xe0\r\n";
    const std::string p = dir / "ru.txt";
    write_file(p, cp1251);
    auto r = run("view", p);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_NE(r.output.find("     1\t\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xd0\xbc\xd0\xb8\xd1\x80\n"), std::string::npos) << r.output;
    EditorRequest s;
    s.old_str = "\xd0\xbc\xd0\xb8\xd1\x80";  // "мир"
    s.new_str = "\xd0\xb4\xd0\xbe\xd0\xbc";  // "дом"
    ASSERT_TRUE(run("str_replace", p, s).ok());
    EXPECT_EQ(read_file(p), "\xcf\xf0\xe8\xe2\xe5\xf2 \xe4\xee\xec\r\n\xe2\xf2\xee\xf0\xe0\xff \xf1\xf2\xf0\xee\xea\xe0\r\n");
}

TEST_F(EditorTest, EditsKeepModeAndLeaveNoTempFiles) {
    const std::string p = dir / "m.sh";
    write_file(p, "echo a\n");
    ASSERT_EQ(::chmod(p.c_str(), 0751), 0);
    EditorRequest s;
    s.old_str = "a";
    s.new_str = "b";
    ASSERT_TRUE(run("str_replace", p, s).ok());
    struct stat st {};
    ASSERT_EQ(::stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0751u);
    if (::geteuid() == 0) {  // only root can give a file away: then the owner must survive the rename
        ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
        s.old_str = "b";
        s.new_str = "c";
        ASSERT_TRUE(run("str_replace", p, s).ok());
        ASSERT_EQ(::stat(p.c_str(), &st), 0);
        EXPECT_EQ(st.st_uid, 65534u);
        EXPECT_EQ(st.st_gid, 65534u);
        EXPECT_EQ(read_file(p), "echo c\n");
    }
    int entries = 0;
    for (const auto &e : std::filesystem::directory_iterator(dir.path())) entries += e.path().filename() != "m.sh";
    EXPECT_EQ(entries, 0);
}

}  // namespace
}  // namespace actionhost::agent_skills
