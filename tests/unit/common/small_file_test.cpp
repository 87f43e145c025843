// common/io/small_file.hpp: a small file read whole up to a bound, written whole, and a flat-keyed
// kernel file's value by name.
#include <gtest/gtest.h>

#include <actionhost/common/io/small_file.hpp>
#include <string>

#include "support/temp_dir.hpp"

namespace io = actionhost::common::io;

TEST(SmallFile, WritesWholeAndReadsUpToTheBound) {
    actionhost::testing::TempDir t;
    const std::string f = t / "pids.max";
    EXPECT_TRUE(io::write_small_file(f, "512\n"));
    EXPECT_EQ(io::read_small_file(f), "512\n");
    EXPECT_TRUE(io::write_small_file(f, "7"));  // replaced, not appended
    EXPECT_EQ(io::read_small_file(f), "7");
    const std::string big(100000, 'x');
    EXPECT_TRUE(io::write_small_file(f, big));
    EXPECT_EQ(io::read_small_file(f, 1000).size(), 1000u);
    EXPECT_EQ(io::read_small_file(f, 1 << 20), big);
    EXPECT_EQ(io::read_small_file(t / "absent"), "");
    EXPECT_FALSE(io::write_small_file(t / "no/such/dir/file", "x"));
}

TEST(SmallFile, FlatKeyedValuesByName) {
    const std::string stat = "usage_usec 123\nuser_usec 100\nnr_periods 0\n";
    EXPECT_EQ(io::flat_keyed_value(stat, "user_usec"), 100u);
    EXPECT_EQ(io::flat_keyed_value(stat, "usage_usec"), 123u);
    EXPECT_FALSE(io::flat_keyed_value(stat, "usec").has_value());
    EXPECT_FALSE(io::flat_keyed_value("oom_kill x\n", "oom_kill").has_value());
}
