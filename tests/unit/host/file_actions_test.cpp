#include "actions/file_actions.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "files/binary_check.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::host;
using namespace actionhost::testing;
using nlohmann::json;

TEST(ReadLines, FollowsOpenHandsReadLines) {
    std::vector<std::string> l = {"a\n", "b\n", "c\n"};
    EXPECT_EQ(select_lines(l, 0, -1).size(), 3u);
    EXPECT_EQ(select_lines(l, 1, -1), (std::vector<std::string>{"b\n", "c\n"}));
    EXPECT_EQ(select_lines(l, 1, 2), (std::vector<std::string>{"b\n"}));
    EXPECT_EQ(select_lines(l, 2, 2), (std::vector<std::string>{"c\n"}));  // a given range yields at least one line
    EXPECT_EQ(select_lines(l, 5, -1).size(), 0u);
}

TEST(InsertLines, FollowsOpenHandsInsertLines) {
    std::vector<std::string> l = {"a\n", "b\n", "c\n"};
    EXPECT_EQ(splice_lines({"x"}, l, 0, -1), "x\n");
    EXPECT_EQ(splice_lines({"x", "y"}, l, 1, 2), "a\nx\ny\nc\n");
    EXPECT_EQ(splice_lines({"x"}, l, 0, 1), "x\nb\nc\n");
}

TEST(FileActions, WriteThenReadRelativeToTheShellsDirectory) {
    TempDir d;
    FileActionContext ctx{d.path(), static_cast<int>(getuid())};
    auto w = write_action({{"path", "sub/a.txt"}, {"content", "hello\nworld"}, {"start", 0}, {"end", -1}}, ctx);
    EXPECT_EQ(w["observation"], "write") << w.dump();
    EXPECT_EQ(w["extras"]["path"], d.path() + "/sub/a.txt");
    EXPECT_EQ(w["message"], "I wrote to the file " + d.path() + "/sub/a.txt.");
    EXPECT_EQ(read_file(d / "sub/a.txt"), "hello\nworld\n");
    struct stat st{};
    ASSERT_EQ(stat((d / "sub/a.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0664u);
    auto r = read_action({{"path", "sub/a.txt"}, {"start", 1}, {"end", -1}}, ctx);
    EXPECT_EQ(r["content"], "world\n");
    EXPECT_EQ(r["extras"]["impl_source"], "default");
}

TEST(FileActions, WriteReplacesALineRangeAndKeepsTheMode) {
    TempDir d;
    write_file(d / "f", "1\n2\n3\n");
    chmod((d / "f").c_str(), 0600);
    FileActionContext ctx{d.path(), 0};
    auto w = write_action({{"path", d / "f"}, {"content", "two"}, {"start", 1}, {"end", 2}}, ctx);
    EXPECT_EQ(w["observation"], "write") << w.dump();
    EXPECT_EQ(read_file(d / "f"), "1\ntwo\n3\n");
    struct stat st{};
    stat((d / "f").c_str(), &st);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(FileActions, ErrorMessagesAreOpenHands) {
    TempDir d;
    FileActionContext ctx{d.path(), 0};
    EXPECT_EQ(read_action({{"path", "missing.txt"}}, ctx)["content"],
              "File not found: " + d.path() + "/missing.txt. Your current working directory is " + d.path() + ".");
    EXPECT_EQ(read_action({{"path", d.path()}}, ctx)["content"], "Path is a directory: " + d.path() + ". You can only read files");
    EXPECT_EQ(write_action({{"path", d.path()}, {"content", "x"}}, ctx)["content"],
              "Path is a directory: " + d.path() + ". You can only write to files");
    write_file(d / "bin.dat", std::string("\x00\x01\x02\x03\xff\xfe", 6));
    auto b = read_action({{"path", "bin.dat"}}, ctx);
    EXPECT_EQ(b["observation"], "error");
    EXPECT_EQ(b["content"], "ERROR_BINARY_FILE");
    write_file(d / "latin1.txt", "caf\xe9 au lait, na\xefve, r\xe9sum\xe9 and more text to read");
    EXPECT_EQ(read_action({{"path", "latin1.txt"}}, ctx)["content"], "File could not be decoded as utf-8: " + d.path() + "/latin1.txt.");
}

TEST(FileActions, ImagesComeBackAsDataUrlsEvenThoughTheyAreBinary) {
    TempDir d;
    const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    write_file(d / "p.png", png);
    auto r = read_action({{"path", d / "p.png"}}, {d.path(), 0});
    EXPECT_EQ(r["observation"], "read");
    EXPECT_EQ(r["content"], "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==");
    write_file(d / "doc.pdf", "%PDF-1.4");
    EXPECT_EQ(read_action({{"path", d / "doc.pdf"}}, {d.path(), 0})["content"], "data:application/pdf;base64,JVBERi0xLjQ=");
}

TEST(BinaryCheck, TextIsTextAndBinaryIsBinary) {
    EXPECT_FALSE(looks_binary("plain text\nwith lines\n"));
    EXPECT_FALSE(looks_binary("unicode: caf\xc3\xa9 \xe2\x9c\x93"));
    EXPECT_FALSE(looks_binary(""));
    EXPECT_TRUE(looks_binary(std::string("\x7f" "ELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 16)));
}
