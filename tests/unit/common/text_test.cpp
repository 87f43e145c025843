// common/text: OpenHands' truncation, ANSI stripping, names made printable for a terminal, sizes as
// people write them, HTML escaping.
#include <gtest/gtest.h>

#include <actionhost/common/text.hpp>

namespace common = actionhost::common;
using actionhost::common::parse_byte_size;
using actionhost::common::printable_name;

TEST(PrintableName, EveryControlCharacterIsShownAsAQuestionMark) {
    // OSC 52 writes the terminal's clipboard; ESC[2J clears the screen; a newline would fake a line.
    EXPECT_EQ(printable_name("\x1b]52;c;aGk=\x07x.txt"), "?]52;c;aGk=?x.txt");
    EXPECT_EQ(printable_name("a\x1b[2Jb"), "a?[2Jb");
    EXPECT_EQ(printable_name("one\ntwo\tthree\rfour"), "one?two?three?four");
    EXPECT_EQ(printable_name("del\x7f c1\xc2\x9b end"), "del? c1? end");
    EXPECT_EQ(printable_name("café €"), "café €");  // other UTF-8 is kept
}

TEST(ParseByteSize, SizesAsPeopleWriteThem) {
    EXPECT_EQ(parse_byte_size("1048576"), 1048576u);
    EXPECT_EQ(parse_byte_size("512k"), 512u << 10);
    EXPECT_EQ(parse_byte_size("64M"), 64u << 20);
    EXPECT_EQ(parse_byte_size("2g"), 2ull << 30);
    EXPECT_EQ(parse_byte_size("2GiB"), 2ull << 30);
    EXPECT_EQ(parse_byte_size("1tb"), 1ull << 40);
    for (const char *bad : {"", "g", "0", "-1", "2x", "1.5g", "99999999999999999999", "9000000000g", " 1"})
        EXPECT_FALSE(parse_byte_size(bad)) << bad;
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
