#include <gtest/gtest.h>

#include "kernel/kernel_command.hpp"

using namespace actionhost::jupyter;

TEST(KernelCommand, DefaultIsDebiansIpykernel) {
    auto argv = expand_kernel_command(default_kernel_command(), "/tmp/c.json");
    EXPECT_EQ(argv, (std::vector<std::string>{"/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "/tmp/c.json"}));
}

TEST(KernelCommand, ParsesWordsAndJsonArrays) {
    auto words = parse_kernel_command("  python3 -m ipykernel_launcher   -f {connection_file} ");
    ASSERT_TRUE(words);
    EXPECT_EQ(words.value().size(), 5u);
    auto arr = parse_kernel_command(R"(["/opt/py bin/python","-m","ipykernel_launcher"])");
    ASSERT_TRUE(arr);
    EXPECT_EQ(arr.value().at(0), "/opt/py bin/python");
    // No placeholder: -f <file> is appended.
    EXPECT_EQ(expand_kernel_command(arr.value(), "/c").back(), "/c");
    EXPECT_EQ(expand_kernel_command(arr.value(), "/c").size(), 5u);
    // Placeholder inside a word.
    EXPECT_EQ(expand_kernel_command({"k", "--f={connection_file}"}, "/c")[1], "--f=/c");
}

TEST(KernelCommand, RefusesEmptyAndMalformed) {
    EXPECT_FALSE(parse_kernel_command(""));
    EXPECT_FALSE(parse_kernel_command("   "));
    EXPECT_FALSE(parse_kernel_command("[1,2]"));
    EXPECT_FALSE(parse_kernel_command("[\"a\""));
    EXPECT_FALSE(parse_kernel_command("[]"));
    EXPECT_EQ(parse_kernel_command("[]").error().message, "kernel command is empty");
}
