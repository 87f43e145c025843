// common/random: the one source of unguessable values — format, length, and no two alike.
#include <actionhost/common/random.hpp>

#include <gtest/gtest.h>

#include <regex>
#include <set>

using namespace actionhost::common;

TEST(Random, HexHasTwoLowerCaseDigitsPerByteAndRepeatsNothing) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const std::string h = random_hex(16);
        ASSERT_EQ(h.size(), 32u);
        ASSERT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
        EXPECT_TRUE(seen.insert(h).second) << "a 128-bit value came twice: " << h;
    }
    EXPECT_EQ(random_hex(0), "");
}

TEST(Random, BytesAreNeverLeftAsTheyWere) {
    // 64 bytes all zero after a fill would be a failure that went unnoticed (the local warm pool's old
    // key came from an unchecked read and could be all zeros).
    for (int i = 0; i < 100; ++i) {
        unsigned char buf[64] = {};
        random_bytes(buf, sizeof buf);
        bool any = false;
        for (unsigned char b : buf) any = any || b != 0;
        ASSERT_TRUE(any);
    }
}

TEST(Random, Uuid4HasItsVersionAndVariant) {
    const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const std::string u = random_uuid4();
        ASSERT_TRUE(std::regex_match(u, shape)) << u;
        EXPECT_TRUE(seen.insert(u).second) << u;
    }
}
