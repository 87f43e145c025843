// common/shell_quote: every value comes back byte for byte from the shell it was quoted for (dash as
// /bin/sh, and bash), and bash_word stays on one line.
#include <actionhost/common/shell_quote.hpp>

#include <gtest/gtest.h>

#include "support/run_process.hpp"

using namespace actionhost::common;
using actionhost::testing::run_process;

namespace {
const std::vector<std::string> kValues = {"plain",       "",          "two words",     "it's",       "a\"b",
                                          "$HOME `id`",  "back\\slash", "line1\nline2", "tab\there",  "*?[a]",
                                          "-n",          "ünïcødé 😀", "x'\"'\"'y",    "\x01\x7f",  "semi;colon|pipe&"};
}  // namespace

TEST(ShellQuote, ShellWordRoundTripsThroughSh) {
    for (const auto &v : kValues) {
        const auto r = run_process({"/bin/sh", "-c", "printf '%s' " + shell_word(v)}, 10);
        EXPECT_EQ(r.output, v) << shell_word(v);
    }
    EXPECT_EQ(shell_word("a/b-c_d.e"), "a/b-c_d.e");  // plain words stay as they are
    EXPECT_EQ(shell_words({"echo", "it's", ""}), "echo 'it'\\''s' ''");
}

TEST(ShellQuote, BashWordRoundTripsThroughBashOnOneLine) {
    for (const auto &v : kValues) {
        const std::string word = bash_word(v);
        EXPECT_EQ(word.find('\n'), std::string::npos) << word;
        const auto r = run_process({"bash", "-c", "printf '%s' " + word}, 10);
        EXPECT_EQ(r.output, v) << word;
    }
}
