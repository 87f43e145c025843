// The cases of OpenHands' editor tests (tests/runtime/test_aci_edit.py) over HTTP against the real host,
// plus the edit observation's shape: message, prev_exist, old/new_content, diff.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "support/host_process.hpp"

namespace {

using actionhost::testing::HostOptions;
using actionhost::testing::HostProcess;
using actionhost::testing::read_file;
using actionhost::testing::write_file;
using nlohmann::json;


class EditorHttp : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { host_ = new HostProcess(HostOptions{.args = {"--plugins", "agent_skills"}}); }
    static void TearDownTestSuite() {
        delete host_;
        host_ = nullptr;
    }
    void SetUp() override {
        // A fresh sub-directory of the working dir per test.
        dir_ = host_->working_dir() + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
        std::filesystem::create_directories(dir_);
    }
    static json edit(json args) {
        args["command"] = args.value("command", "");
        return host_->execute({{"action", "edit"}, {"args", args}});
    }
    static std::string content(json args) { return edit(std::move(args))["content"].get<std::string>(); }
    std::string file(const std::string &name, const std::string &text) {
        write_file(dir_ + "/" + name, text);
        return dir_ + "/" + name;
    }
    static HostProcess *host_;
    std::string dir_;
};
HostProcess *EditorHttp::host_ = nullptr;

TEST_F(EditorHttp, ViewFile) {
    const std::string p = file("test.txt", "This is a test file.\nThis file is for testing purposes.\n");
    EXPECT_EQ(content({{"command", "view"}, {"path", p}}),
              "Here's the result of running `cat -n` on " + p + ":\n     1\tThis is a test file.\n     2\tThis file is for testing purposes.\n     3\t\n");
}

TEST_F(EditorHttp, ViewDirectoryExactWithHiddenCount) {
    file("test.txt", "x\n");
    file(".downloads/keep", "");
    EXPECT_EQ(content({{"command", "view"}, {"path", dir_}}),
              "Here's the files and directories up to 2 levels deep in " + dir_ + ", excluding hidden items:\n" + dir_ + "/\n" + dir_ +
                  "/test.txt\n\n1 hidden files/directories in this directory are excluded. You can use 'ls -la " + dir_ + "' to see them.");
}

TEST_F(EditorHttp, CreateEmptyAndNull) {
    const std::string p = dir_ + "/new_file.txt";
    json obs = edit({{"command", "create"}, {"path", p}, {"file_text", "New file content"}});
    EXPECT_EQ(obs["content"], "File created successfully at: " + p);
    EXPECT_EQ(obs["extras"]["prev_exist"], false);
    EXPECT_EQ(obs["extras"]["diff"], "--- " + p + "\n+++ " + p + "\n@@ -1 +1 @@\n-\n+New file content");
    EXPECT_EQ(read_file(p), "New file content");
    EXPECT_NE(content({{"command", "view"}, {"path", p}}).find("New file content"), std::string::npos);

    const std::string e = dir_ + "/empty.txt";
    EXPECT_EQ(content({{"command", "create"}, {"path", e}, {"file_text", ""}}), "File created successfully at: " + e);
    EXPECT_EQ(content({{"command", "view"}, {"path", e}}), "Here's the result of running `cat -n` on " + e + ":\n     1\t\n");
    EXPECT_EQ(content({{"command", "create"}, {"path", dir_ + "/none.txt"}, {"file_text", nullptr}}),
              "ERROR:\nParameter `file_text` is required for command: create.");
}

// As openhands-aci (whose create is open(path, 'w')): a missing parent directory is not made.
TEST_F(EditorHttp, CreateUnderAMissingDirectoryFailsAsOpenHandsAndMakesNothing) {
    const std::string p = dir_ + "/missing/deeper/new.txt";
    json obs = edit({{"command", "create"}, {"path", p}, {"file_text", "x"}});
    EXPECT_EQ(obs["content"], "ERROR:\nRan into [Errno 2] No such file or directory: '" + p + "' while trying to write to " + p);
    EXPECT_EQ(obs["extras"]["diff"], "");
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/missing"));
}

TEST_F(EditorHttp, StrReplaceExactSnippetAndObservationShape) {
    const std::string p = dir_ + "/test.txt";
    edit({{"command", "create"}, {"path", p}, {"file_text", "def test():\n\tprint(\"Hello, World!\")"}});
    const json obs = edit({{"command", "str_replace"}, {"path", p}, {"old_str", "def test():\n\tprint(\"Hello, World!\")"},
                           {"new_str", "def test():\n\tprint(\"Hello, Universe!\")"}});
    EXPECT_EQ(obs["content"], "The file " + p + " has been edited. Here's the result of running `cat -n` on a snippet of " + p +
                                  ":\n     1\tdef test():\n     2\t\tprint(\"Hello, Universe!\")\nReview the changes and make sure they are as expected. Edit the file again if necessary.");
    EXPECT_EQ(obs["message"], "I edited the file " + p + ".");
    EXPECT_EQ(obs["observation"], "edit");
    EXPECT_FALSE(obs.contains("success"));
    const json &x = obs["extras"];
    std::vector<std::string> keys;
    for (auto it = x.begin(); it != x.end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, (std::vector<std::string>{"_diff_cache", "diff", "impl_source", "new_content", "old_content", "path", "prev_exist"}));
    EXPECT_EQ(x["path"], p);
    EXPECT_EQ(x["prev_exist"], true);  // OpenHands always says false here; we say what happened
    EXPECT_EQ(x["old_content"], "def test():\n\tprint(\"Hello, World!\")");   // the action's old_str
    EXPECT_EQ(x["new_content"], "def test():\n\tprint(\"Hello, Universe!\")");
    EXPECT_EQ(x["impl_source"], "oh_aci");
    EXPECT_TRUE(x["_diff_cache"].is_null());
    EXPECT_EQ(x["diff"], "--- " + p + "\n+++ " + p + "\n@@ -2 +2 @@\n-\tprint(\"Hello, World!\")\n+\tprint(\"Hello, Universe!\")");
}

TEST_F(EditorHttp, StrReplaceErrors) {
    const std::string p = file("test.txt", "This is a test file.\nThis file is for testing purposes.\n");
    json obs = edit({{"command", "str_replace"}, {"path", p}, {"old_str", "test"}, {"new_str", "sample"}});
    EXPECT_EQ(obs["content"], "ERROR:\nNo replacement was performed. Multiple occurrences of old_str `test` in lines [1, 2]. Please ensure it is unique.");
    EXPECT_EQ(obs["extras"]["diff"], "");
    EXPECT_EQ(obs["extras"]["old_content"], "test");

    const std::string block = "def example():\n        print(\"Hello\")\n        return True";
    const std::string q = file("multi.txt", block + "\n\nprint('separator')\n\n" + block + "\n");
    EXPECT_NE(content({{"command", "str_replace"}, {"path", q}, {"old_str", block}, {"new_str", "def new():\n    print(\"World\")"}}).find("in lines [1, 7]."),
              std::string::npos);

    const std::string r = file("lines.txt", "Line 1\nLine 2\n");
    EXPECT_EQ(content({{"command", "str_replace"}, {"path", r}, {"old_str", "Non-existent Line"}, {"new_str", "New Line"}}),
              "ERROR:\nNo replacement was performed, old_str `Non-existent Line` did not appear verbatim in " + r + ".");
    EXPECT_EQ(content({{"command", "str_replace"}, {"path", r}, {"old_str", "test file"}, {"new_str", "test file"}}),
              "ERROR:\nInvalid `new_str` parameter: test file. No replacement was performed. `new_str` and `old_str` must be different.");
    EXPECT_EQ(content({{"command", "str_replace"}, {"path", r}, {"old_str", nullptr}, {"new_str", "x"}}),
              "ERROR:\nParameter `old_str` is required for command: str_replace.");

    const std::string three = file("three.txt", "Line 1\nLine 2\nLine 3\n");  // what `write` makes of 3 lines
    EXPECT_EQ(content({{"command", "str_replace"}, {"path", three}, {"old_str", ""}, {"new_str", "New string"}}),
              "ERROR:\nNo replacement was performed. Multiple occurrences of old_str `` in lines [1, 2, 3, 4]. Please ensure it is unique.");
}

TEST_F(EditorHttp, StrReplaceDelete) {
    const std::string p = file("test.txt", "Line 1\nLine to remove\nLine 3\n");
    const json obs = edit({{"command", "str_replace"}, {"path", p}, {"old_str", "Line to remove\n"}, {"new_str", ""}});
    EXPECT_EQ(obs["content"], "The file " + p + " has been edited. Here's the result of running `cat -n` on a snippet of " + p +
                                  ":\n     1\tLine 1\n     2\tLine 3\n     3\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.");
    EXPECT_EQ(obs["extras"]["diff"], "--- " + p + "\n+++ " + p + "\n@@ -2 +1,0 @@\n-Line to remove");
    EXPECT_EQ(read_file(p), "Line 1\nLine 3\n");
}

TEST_F(EditorHttp, InsertVariants) {
    const std::string p = file("test.txt", "Line 1\nLine 2\n");
    EXPECT_EQ(content({{"command", "insert"}, {"path", p}, {"insert_line", 1}, {"new_str", "Inserted line"}}),
              "The file " + p + " has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tLine 1\n     2\tInserted line\n     3\tLine 2\n     4\t\n"
              "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.");
    EXPECT_EQ(content({{"command", "insert"}, {"path", p}, {"insert_line", 10}, {"new_str", "Invalid Insert"}}),
              "ERROR:\nInvalid `insert_line` parameter: 10. It should be within the range of allowed values: [0, 3]");
    const std::string e = file("empty_insert.txt", "Line 1\nLine 2\n");
    const std::string out = content({{"command", "insert"}, {"path", e}, {"insert_line", "1"}, {"new_str", ""}});  // string converted
    EXPECT_NE(out.find("     1\tLine 1\n     2\t\n     3\tLine 2\n"), std::string::npos) << out;
    EXPECT_EQ(content({{"command", "insert"}, {"path", e}, {"insert_line", 1}, {"new_str", nullptr}}),
              "ERROR:\nParameter `new_str` is required for command: insert.");
    EXPECT_EQ(content({{"command", "insert"}, {"path", e}, {"new_str", "Missing insert line"}}),
              "ERROR:\nParameter `insert_line` is required for command: insert.");
    EXPECT_EQ(content({{"command", "insert"}, {"path", e}, {"insert_line", "abc"}, {"new_str", "x"}}),
              "ERROR:\nInvalid insert_line value: 'abc'. Expected an integer.");
}

TEST_F(EditorHttp, UndoAndNoHistory) {
    const std::string p = file("test.txt", "This is a test file.\n");
    EXPECT_NE(content({{"command", "str_replace"}, {"path", p}, {"old_str", "test"}, {"new_str", "sample"}}).find("This is a sample file."), std::string::npos);
    const json obs = edit({{"command", "undo_edit"}, {"path", p}});
    EXPECT_EQ(obs["content"], "Last edit to " + p + " undone successfully. Here's the result of running `cat -n` on " + p + ":\n     1\tThis is a test file.\n     2\t\n");
    EXPECT_EQ(obs["extras"]["diff"], "--- " + p + "\n+++ " + p + "\n@@ -1 +1 @@\n-This is a sample file.\n+This is a test file.");
    EXPECT_EQ(read_file(p), "This is a test file.\n");
    const std::string e = file("empty.txt", "");
    EXPECT_EQ(content({{"command", "undo_edit"}, {"path", e}}), "ERROR:\nNo edit history found for " + e + ".");
}

TEST_F(EditorHttp, PathErrors) {
    const std::string missing = dir_ + "/nonexistent.txt";
    const json obs = edit({{"command", "view"}, {"path", missing}});
    EXPECT_EQ(obs["content"], "ERROR:\nInvalid `path` parameter: " + missing + ". The path " + missing + " does not exist. Please provide a valid path.");
    EXPECT_EQ(obs["extras"]["prev_exist"], false);
    const std::string p = file("test.txt", "Line 1\nLine 2\n");
    EXPECT_EQ(content({{"command", "create"}, {"path", p}, {"file_text", "New content"}}),
              "ERROR:\nInvalid `path` parameter: " + p + ". File already exists at: " + p + ". Cannot overwrite files using command `create`.");
    // A relative path that exists under the working dir gets the hint.
    file("rel.txt", "x");
    const std::string rel = std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "/rel.txt";
    EXPECT_EQ(content({{"command", "view"}, {"path", rel}}),
              "ERROR:\nInvalid `path` parameter: " + rel + ". The path should be an absolute path, starting with `/`. Maybe you meant " +
                  host_->working_dir() + "/" + rel + "?");
    EXPECT_EQ(content({{"command", "view"}, {"path", "/dev/zero"}}),
              "ERROR:\nInvalid `path` parameter: /dev/zero. The path /dev/zero is a character device; the editor only works on regular files and directories.");
}

TEST_F(EditorHttp, LargeFileIsClipped) {
    std::string big;
    for (int i = 0; i < 16000; ++i) big += "Line 1\n";
    const std::string p = file("large_test.txt", big);
    const std::string out = content({{"command", "view"}, {"path", p}});
    EXPECT_NE(out.find("<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>\n"),
              std::string::npos);
    const std::string huge = file("huge.txt", std::string(11 * 1024 * 1024, 'a'));
    EXPECT_EQ(content({{"command", "view"}, {"path", huge}}),
              "ERROR:\nFile validation failed for " + huge + ": File is too large (11.0MB). Maximum allowed size is 10MB.");
}

TEST_F(EditorHttp, NonOhAciEditIsAnErrorObservation) {
    const json obs = edit({{"command", "view"}, {"path", dir_}, {"impl_source", "llm_based_edit"}});
    EXPECT_EQ(obs["observation"], "error");
}

TEST(EditorRootsHttp, ConfinedByActionhostEditorRoots) {
    actionhost::testing::TempDir outside("ah-outside"), work("ah-confined");
    write_file(outside / "secret.txt", "secret\n");
    write_file(work / "in.txt", "in\n");
    ASSERT_EQ(::symlink((outside / "secret.txt").c_str(), (work / "link.txt").c_str()), 0);
    auto view = [](HostProcess &h, const std::string &p) {
        return h.execute({{"action", "edit"}, {"args", {{"command", "view"}, {"path", p}}}})["content"].get<std::string>();
    };
    const std::string denied = "ERROR:\nInvalid `path` parameter: " + (outside / "secret.txt") + ". The path " + (outside / "secret.txt") +
                               " is outside the directories this editor may access: " + std::filesystem::canonical(work.path()).string() + ".";
    {
        // --set KEY=VALUE; the edit action loads the plugin lazily.
        HostProcess confined(HostOptions{.args = {"--set", "ACTIONHOST_EDITOR_ROOTS=" + work.path()}, .working_dir = work.path()});
        EXPECT_EQ(view(confined, work / "in.txt").rfind("Here's the result of running `cat -n`", 0), 0u);
        EXPECT_EQ(view(confined, outside / "secret.txt"), denied);
        EXPECT_NE(view(confined, work / "link.txt").find("resolves to " + std::filesystem::canonical(outside / "secret.txt").string() + ", which is outside"),
                  std::string::npos);
    }
    {
        // The host's environment works too (config_get falls back to it).
        HostProcess confined(HostOptions{.args = {"--plugins", "agent_skills"}, .env = {{"ACTIONHOST_EDITOR_ROOTS", work.path()}}, .working_dir = work.path()});
        EXPECT_EQ(view(confined, outside / "secret.txt"), denied);
    }
    {
        // Unset: the whole file system, as OpenHands.
        HostProcess open_host(HostOptions{.args = {"--plugins", "agent_skills"}});
        EXPECT_EQ(view(open_host, outside / "secret.txt").rfind("Here's the result of running `cat -n`", 0), 0u);
    }
}

}  // namespace
