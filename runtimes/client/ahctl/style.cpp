#include "style.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace ahctl {

bool colour_on(int fd) {
    const char *no_colour = std::getenv("NO_COLOR");
    const char *term = std::getenv("TERM");
    if (no_colour != nullptr && *no_colour != '\0') return false;
    if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
    return isatty(fd) != 0;
}

namespace {
std::string wrap(const char *sgr, const std::string &text) {
    return colour_on(2) ? std::string("\033[") + sgr + "m" + text + "\033[0m" : text;
}
}  // namespace

std::string red(const std::string &text) { return wrap("1;31", text); }
std::string green(const std::string &text) { return wrap("32", text); }
std::string dim(const std::string &text) { return wrap("2", text); }

}  // namespace ahctl
