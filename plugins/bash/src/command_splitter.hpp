// Splits the text of a `run` action into its top-level shell commands, as OpenHands does with bashlex
// before refusing an action that holds several ("Cannot execute multiple commands at once").
//
// A "command" here is one complete command of the shell grammar: everything bash would read before it
// runs something. `a && b`, `a; b`, pipelines, loops, if/case, functions, subshells, quoted newlines,
// `\` continuations, $(...) and backticks spanning lines, and heredocs (with their bodies) are each one
// command; complete commands on separate lines are several. Text between commands (comments, blank
// lines) is glued to the command before it; comments before the first command are glued to the first.
// When the text does not parse, the whole text is returned as one command: bash will report the error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace actionhost::bash {

// Returns the top-level commands of `text`, each right-stripped, in order. An empty or blank text gives
// one empty command. Never throws; bounded in time (linear in the input) and recursion depth.
std::vector<std::string> split_commands(std::string_view text);

}  // namespace actionhost::bash
