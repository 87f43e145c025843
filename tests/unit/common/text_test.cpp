// common/text: names made printable on one line of a terminal, sizes as people write them.
#include <gtest/gtest.h>

#include <actionhost/common/text.hpp>

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
