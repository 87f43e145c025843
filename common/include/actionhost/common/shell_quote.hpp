// Quoting text into shell commands: the one owner of it. Every value is carried byte for byte — quotes,
// newlines, `$`, backticks, backslashes, unicode.
//
// Two forms, for two shells:
//   - shell_word: any POSIX sh (dash, busybox, a cloud sandbox's /bin/sh): a plain word as it is, else
//     '...' with each ' written '\''. A value with a newline stays multi-line.
//   - bash_word: bash only, always one line (a command typed into the bash plugin must stay one
//     command): '...' when that is enough, else ANSI-C $'...' with \\ \' \n \t \r and \xHH escapes.
//
// Threads: any.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace actionhost::common {

std::string shell_word(std::string_view value);
// The words of `argv`, each as shell_word, joined by spaces.
std::string shell_words(const std::vector<std::string> &argv);
std::string bash_word(std::string_view value);

}  // namespace actionhost::common
