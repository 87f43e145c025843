// The top-level command splitter: OpenHands' own parsing cases (tests/unit/runtime/utils/
// test_bash_parsing.py) plus the shell constructs that must stay one command.
#include "command_splitter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using actionhost::bash::split_commands;
using V = std::vector<std::string>;

namespace {

void expect_one(const std::string &cmd) {
    EXPECT_EQ(split_commands(cmd), V{cmd}) << cmd;
}

}  // namespace

TEST(CommandSplitter, SingleCommandsFromOpenHandsSuite) {
    expect_one("ls -l");
    expect_one("echo 'Hello, world!'");
    expect_one("cd /tmp && touch test.txt");
    expect_one("echo -e 'line1\\nline2\\nline3'");
    expect_one("grep 'pattern' file.txt | sort | uniq");
    expect_one("for i in {1..5}; do echo $i; done");
    expect_one("echo 'Single quotes don't escape'");  // as the Python literal reads: balanced quotes
    expect_one("echo \"Double quotes \\\"do\\\" escape\"");
}

TEST(CommandSplitter, HeredocFollowedByCommandIsTwo) {
    const std::string in = "\ncat <<EOF\nmultiline\ntext\nEOF\necho \"Done\"\n";
    EXPECT_EQ(split_commands(in), (V{"cat <<EOF\nmultiline\ntext\nEOF", "echo \"Done\""}));
}

TEST(CommandSplitter, BackslashContinuationThenNextCommand) {
    const std::string in = "\necho \"This is a long \\\ncommand that spans \\\nmultiple lines\"\necho \"Next command\"\n";
    EXPECT_EQ(split_commands(in),
              (V{"echo \"This is a long \\\ncommand that spans \\\nmultiple lines\"", "echo \"Next command\""}));
}

TEST(CommandSplitter, CommentsAreGluedToThePreviousCommand) {
    const std::string in = "\necho \"Hello\" # This is a comment\n# This is another comment\nls -l\n";
    EXPECT_EQ(split_commands(in), (V{"echo \"Hello\" # This is a comment\n# This is another comment", "ls -l"}));
}

TEST(CommandSplitter, ComplexQuoting) {
    const std::string in =
        "\necho \"This is a \\\"quoted\\\" string\"\necho 'This is a '''single-quoted''' string'\n"
        "echo \"Mixed 'quotes' in \\\"double quotes\\\"\"\n";
    EXPECT_EQ(split_commands(in), (V{"echo \"This is a \\\"quoted\\\" string\"",
                                     "echo 'This is a '''single-quoted''' string'",
                                     "echo \"Mixed 'quotes' in \\\"double quotes\\\"\""}));
}

TEST(CommandSplitter, UnparsableTextIsOneCommand) {
    for (const std::string in : {"echo \"Unclosed quote", "echo 'Unclosed quote", "echo (Unclosed parenthesis",
                                 "echo \"Unclosed nested \"quote", "echo $(unclosed subshell",
                                 "ls\nif true; then\necho x", "fi\nls", "echo a ) b\nls"})
        EXPECT_EQ(split_commands(in), V{in}) << in;
}

TEST(CommandSplitter, OpenHandsJoinedCommandListSplitsBackIntoItsParts) {
    const V cmds = {
        "ls -l",
        "echo -e \"hello\nworld\"",
        "echo -e \"hello it\\'s me\"",
        "echo \\\n    -e 'hello' \\\n    -v",
        "echo -e 'hello\\nworld\\nare\\nyou\\nthere?'",
        "echo -e 'hello\nworld\nare\nyou\\n\nthere?'",
        "echo -e 'hello\nworld \"\n'",
        "kubectl apply -f - <<EOF\napiVersion: v1\nkind: Pod\nmetadata:\n  name: busybox-sleep\nspec:\n"
        "  containers:\n  - name: busybox\n    image: busybox:1.28\n    args:\n    - sleep\n    - \"1000000\"\nEOF",
        "mkdir -p _modules && for month in {01..04}; do\n    for day in {01..05}; do\n        touch "
        "\"_modules/2024-${month}-${day}-sample.md\"\n    done\ndone",
    };
    std::string joined;
    for (size_t i = 0; i < cmds.size(); ++i) joined += (i ? "\n" : "") + cmds[i];
    EXPECT_EQ(split_commands(joined), cmds);
}

TEST(CommandSplitter, NewlineSeparatedCommandsAreSeveral) {
    EXPECT_EQ(split_commands("echo a\necho b"), (V{"echo a", "echo b"}));
    EXPECT_EQ(split_commands("ls\n\n\npwd\n"), (V{"ls", "pwd"}));
    EXPECT_EQ(split_commands("sleep 1 &\necho hi"), (V{"sleep 1 &", "echo hi"}));
    EXPECT_EQ(split_commands("a; b\nc && d"), (V{"a; b", "c && d"}));
}

TEST(CommandSplitter, CompoundCommandsSpanningLinesAreOne) {
    expect_one("if [ -f x ]; then\n  echo yes\nelif true; then\n  echo maybe\nelse\n  echo no\nfi");
    expect_one("while read -r line; do\n  echo \"$line\"\ndone < file.txt");
    expect_one("until false\ndo\n  break\ndone");
    expect_one("case \"$x\" in\n  a|b) echo ab ;;\n  (c) echo c ;&\n  *) echo other\nesac");
    expect_one("f() {\n  echo in f\n}");
    expect_one("function g {\n  echo g\n}");
    expect_one("function h()\n{\n  echo h\n}");
    expect_one("{\n  echo a\n  echo b\n} > out.txt");
    expect_one("(\n  cd /tmp\n  ls\n)");
    expect_one("for ((i=0; i<3; i++)); do\n  echo $i\ndone");
    expect_one("select x in a b; do break; done");
    expect_one("(( x = 1 << 2 ))");
    expect_one("[[ -n \"$a\" && $b < c ]]");
}

TEST(CommandSplitter, OperatorsContinueOntoTheNextLine) {
    expect_one("echo a &&\necho b");
    expect_one("false ||\n  echo b");
    expect_one("cat file |\n  grep x |\n  wc -l");
    expect_one("echo a \\\n  b \\\n  c");
}

TEST(CommandSplitter, QuotesAndSubstitutionsMayHoldNewlines) {
    expect_one("echo \"line1\n\nline3\"");
    expect_one("echo 'a\n\nb'");
    expect_one("x=$(\n  echo a\n  echo b\n)");
    expect_one("echo `date\necho`");
    expect_one("echo $(case a in a) echo x ;; esac)");
    expect_one("echo $((1 +\n 2))");
    expect_one("echo ${x:-\"a\nb\"}");
    expect_one("arr=(\n  one\n  two\n)");
    expect_one("diff <(ls\n) <(ls)");
    expect_one("echo $'a\\'\nb'");
}

TEST(CommandSplitter, HeredocVariants) {
    expect_one("cat <<'EOF'\n$notexpanded\n\nEOF");
    expect_one("cat <<-EOF\n\tindented\n\tEOF");
    expect_one("cat <<\"END\" > f.txt\nline; with ; semicolons\nfi\nEND");
    expect_one("python3 - <<EOF\nprint('hi')\nEOF");
    expect_one("cat <<A <<B\na\nA\nb\nB");
    expect_one("x=$(cat <<EOF\nin\nEOF\n)");
    EXPECT_EQ(split_commands("cat <<EOF\nbody\nEOF\nls\npwd"), (V{"cat <<EOF\nbody\nEOF", "ls", "pwd"}));
    // No delimiter: bash reads the body to the end of the input.
    expect_one("cat <<EOF\nnever closed\nls");
}

TEST(CommandSplitter, CommentsAndBlanks) {
    EXPECT_EQ(split_commands(""), V{""});
    EXPECT_EQ(split_commands("   \n  "), V{""});
    expect_one("# only a comment");
    expect_one("# first\n# second");
    expect_one("echo a # trailing # comment");
    expect_one("echo a#b");
    // A comment before the first command stays with it (OpenHands would count it as a command).
    EXPECT_EQ(split_commands("# note\nls -l"), V{"# note\nls -l"});
    EXPECT_EQ(split_commands("# note\nls\npwd"), (V{"# note\nls", "pwd"}));
}

TEST(CommandSplitter, SpecialKeysAndEscapesAreOneCommand) {
    expect_one("C-c");
    expect_one("find . -name '*.txt' -exec echo {} \\;");
    expect_one("echo a\\;b");
    expect_one("echo hi > /dev/null 2>&1 &");
    expect_one("ls &> out.txt");
    expect_one("ls !(x)");
}

TEST(CommandSplitter, DeepNestingIsBoundedNotACrash) {
    std::string deep;
    for (int i = 0; i < 5000; ++i) deep += "$(";
    deep += "echo";
    for (int i = 0; i < 5000; ++i) deep += ")";
    EXPECT_EQ(split_commands("echo " + deep).size(), 1u);
    std::string parens(20000, '(');
    EXPECT_EQ(split_commands(parens).size(), 1u);
}
