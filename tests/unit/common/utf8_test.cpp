// common/utf8: validation and repair of UTF-8 text (what the JSON writer and the terminal readers rely on).
#include <gtest/gtest.h>

#include <actionhost/common/utf8.hpp>

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
