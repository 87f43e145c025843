// Colour for ahctl's own messages: only on a terminal, never when NO_COLOR is set (no-color.org) or
// TERM is "dumb".
#pragma once

#include <string>

namespace ahctl {

// Whether output to `fd` may be coloured.
bool colour_on(int fd);
// `text` in red / green / dim when stderr may be coloured; as is otherwise.
std::string red(const std::string &text);
std::string green(const std::string &text);
std::string dim(const std::string &text);

}  // namespace ahctl
