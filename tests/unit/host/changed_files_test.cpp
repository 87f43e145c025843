// host/audit/changed_files: which file an action's arguments say it changes (the audit trail's "files").
#include <gtest/gtest.h>

#include "audit/changed_files.hpp"

using actionhost::host::audit::files_changed_by;
using nlohmann::json;
using V = std::vector<std::string>;

TEST(ChangedFiles, WriteAndTheEditorsChangingCommandsNameTheirPath) {
    EXPECT_EQ(files_changed_by("write", {{"path", "/w/a.txt"}, {"content", "x"}}, "/w"), V{"/w/a.txt"});
    for (const char *command : {"create", "str_replace", "insert", "undo_edit"})
        EXPECT_EQ(files_changed_by("edit", {{"path", "/w/b.py"}, {"command", command}}, "/w"), V{"/w/b.py"}) << command;
    // The LLM-based edit has no command (or an empty one).
    EXPECT_EQ(files_changed_by("edit", {{"path", "/w/c"}, {"content", "y"}}, "/w"), V{"/w/c"});
    EXPECT_EQ(files_changed_by("edit", {{"path", "/w/c"}, {"command", ""}}, "/w"), V{"/w/c"});
}

TEST(ChangedFiles, RelativePathsAreTakenFromTheWorkingDirectory) {
    EXPECT_EQ(files_changed_by("write", {{"path", "sub/../x.txt"}}, "/work/dir"), V{"/work/dir/x.txt"});
    EXPECT_EQ(files_changed_by("write", {{"path", "/a/./b/../c"}}, "/w"), V{"/a/c"});
    EXPECT_EQ(files_changed_by("write", {{"path", "x"}}, ""), V{"/x"});
}

TEST(ChangedFiles, ViewsReadsCommandsAndBadArgumentsListNothing) {
    EXPECT_EQ(files_changed_by("edit", {{"path", "/w/a"}, {"command", "view"}}, "/w"), V{});
    EXPECT_EQ(files_changed_by("read", {{"path", "/w/a"}}, "/w"), V{});
    EXPECT_EQ(files_changed_by("run", {{"command", "touch /w/a"}}, "/w"), V{});
    EXPECT_EQ(files_changed_by("write", {{"path", 7}}, "/w"), V{});
    EXPECT_EQ(files_changed_by("write", {{"path", ""}}, "/w"), V{});
    EXPECT_EQ(files_changed_by("write", json::array(), "/w"), V{});
    EXPECT_EQ(files_changed_by("edit", {{"path", "/w/a"}, {"command", 3}}, "/w"), V{});
}
