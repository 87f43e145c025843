#include <gtest/gtest.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/text.hpp>
#include <actionhost/common/user_entry.hpp>
#include <actionhost/common/utf8.hpp>

#include <atomic>
#include <thread>

#include "http/auth.hpp"

using namespace actionhost;

TEST(Utf8, ValidatesAndSanitises) {
    EXPECT_TRUE(common::is_valid_utf8("plain \xc3\xa9 \xf0\x9f\x98\x80"));
    EXPECT_FALSE(common::is_valid_utf8("bad \xff"));
    EXPECT_FALSE(common::is_valid_utf8("overlong \xc0\xaf"));
    EXPECT_FALSE(common::is_valid_utf8("surrogate \xed\xa0\x80"));
    EXPECT_EQ(common::sanitize_utf8("a\xffz"), "a\xef\xbf\xbdz");
    EXPECT_EQ(common::utf8_complete_prefix("ab\xc3"), 2u);
    EXPECT_EQ(common::utf8_complete_prefix("ab\xc3\xa9"), 4u);
}

TEST(Json, RefusesDeepNestingAndInvalidUtf8) {
    EXPECT_TRUE(common::parse_json("{\"a\":[1,2]}"));
    std::string deep(10000, '[');
    deep += std::string(10000, ']');
    auto r = common::parse_json(deep);
    EXPECT_FALSE(r);
    EXPECT_NE(r.error().message.find("nested deeper"), std::string::npos);
    EXPECT_FALSE(common::parse_json("\"\xff\""));
    EXPECT_EQ(common::dump_json(nlohmann::json(std::string("x\xffy"))), "\"x\xef\xbf\xbdy\"");
}

TEST(Text, TruncatesLikeOpenHands) {
    std::string s(40000, 'x');
    s[0] = 'A';
    s[39999] = 'Z';
    const std::string t = common::truncate_observation(s);
    EXPECT_EQ(t.size(), 30000u + std::string("\n[... Observation truncated due to length ...]\n").size());
    EXPECT_EQ(t.front(), 'A');
    EXPECT_EQ(t.back(), 'Z');
    EXPECT_EQ(common::truncate_observation("short"), "short");
    EXPECT_EQ(common::strip_ansi("\x1b[31mred\x1b[0m \x1b]0;title\x07ok"), "red ok");
    EXPECT_EQ(common::strip_ansi("\x1b(Bplain\x1b=x"), "plainx");
}

TEST(Text, PrintableForTerminalLeavesNoControlToTheTerminal) {
    // A directory name that would retitle the terminal, ring it, move the cursor or speak C1 (CSI, U+009B).
    EXPECT_EQ(common::printable_for_terminal("/workspace/\x1b]0;PWNED\x07x"), "/workspace/x");
    EXPECT_EQ(common::printable_for_terminal("a\rb\bc\x07" "d\x7f"), "a?b?c?d?");
    EXPECT_EQ(common::printable_for_terminal("csi\xc2\x9b" "2J"), "csi?2J");
    EXPECT_EQ(common::printable_for_terminal("lines\nand\ttabs \xc3\xa9t\xc3\xa9"), "lines\nand\ttabs \xc3\xa9t\xc3\xa9");
}

TEST(Text, AsciiLowerChangesOnlyAsciiLetters) {
    EXPECT_EQ(common::ascii_lower("Git.TEST:443"), "git.test:443");
    EXPECT_EQ(common::ascii_lower("Transfer-Encoding"), "transfer-encoding");
    EXPECT_EQ(common::ascii_lower("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9") << "bytes of UTF-8 stay as they are";
    EXPECT_EQ(common::ascii_lower(""), "");
}

TEST(Text, HtmlEscapeLeavesNoMarkup) {
    EXPECT_EQ(common::html_escape("<a href=\"x\">it's & more</a>"), "&lt;a href=&quot;x&quot;&gt;it&#x27;s &amp; more&lt;/a&gt;");
    EXPECT_EQ(common::html_escape("/plain/path.png"), "/plain/path.png");
}

TEST(Auth, AcceptsOnlyTheKey) {
    actionhost::host::ApiKeyCheck check("s3cret");
    EXPECT_TRUE(check.accepts("s3cret"));
    EXPECT_FALSE(check.accepts("s3cre"));
    EXPECT_FALSE(check.accepts("s3creT"));
    EXPECT_FALSE(check.accepts(""));
    EXPECT_FALSE(check.accepts("s3cret "));
    EXPECT_FALSE(check.accepts(std::string("s3cret\0", 7)));
    EXPECT_TRUE(check.enabled());
    EXPECT_TRUE(actionhost::host::ApiKeyCheck("").accepts("anything"));
    EXPECT_FALSE(actionhost::host::ApiKeyCheck("").enabled());
    // Keys are bytes: a NUL inside one is part of it.
    actionhost::host::ApiKeyCheck binary(std::string("a\0b", 3));
    EXPECT_TRUE(binary.accepts(std::string("a\0b", 3)));
    EXPECT_FALSE(binary.accepts("a"));
}

TEST(UserEntry, LooksUsersUpByNameAndUid) {
    const auto root = common::user_by_name("root");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->uid, 0u);
    EXPECT_EQ(root->home, "/root");
    const auto by_uid = common::user_by_uid(0);
    ASSERT_TRUE(by_uid);
    EXPECT_EQ(by_uid->name, "root");
    EXPECT_FALSE(common::user_by_name("no-such-user-of-actionhost"));
}

// getpwnam/getpwuid share one buffer per process: two threads looking up different users may read each
// other's entries (the host's main thread and a plugin's init did). Each lookup here owns its copy. The
// plain build rarely sees a torn entry; under the tsan preset a shared buffer is reported as a race.
TEST(UserEntry, LookupsOnTwoThreadsEachSeeTheirOwnUser) {
    const auto nobody = common::user_by_uid(65534);
    if (!nobody) GTEST_SKIP() << "no user with uid 65534 on this machine";
    std::atomic<int> wrong{0};
    std::thread other([&] {
        for (int i = 0; i < 2000; ++i)
            if (const auto u = common::user_by_uid(65534); !u || u->name != nobody->name) ++wrong;
    });
    for (int i = 0; i < 2000; ++i)
        if (const auto u = common::user_by_name("root"); !u || u->uid != 0 || u->home != "/root") ++wrong;
    other.join();
    EXPECT_EQ(wrong.load(), 0);
}
