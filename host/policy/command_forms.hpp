// The forms of a shell command a deny_commands pattern is matched against: a pattern written for
// `rm -rf /` must also catch `r''m -rf /`, `rm${IFS}-rf /`, `bash -c "rm -rf /"`, `sudo rm -rf /`, a
// backslash-newline inside it, or the command as the second line or the right side of `;`, `&&`, `|`.
#pragma once

#include <string>
#include <vector>

namespace actionhost::host {

// The command as sent; then with quotes, backslashes and $IFS removed and blank runs folded to one space;
// then each simple command of that (split on newlines, ; & | ( ) { } and backticks, `$(`), trimmed, with
// leading wrappers (sudo, env, exec, nohup, time, command, eval, nice, `sh -c` and the like, VAR=value)
// taken off. Not a shell parser: what a regular expression on the text cannot see (a name built from
// variables, a script written to a file then run) stays unseen — docs/security.md, "Policy", says so.
std::vector<std::string> command_forms(const std::string &command);

}  // namespace actionhost::host
