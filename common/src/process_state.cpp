#include "actionhost/common/process_state.hpp"

#include <signal.h>

#include <cstdio>
#include <cstring>

namespace actionhost::common {

bool process_is_live(pid_t pid) {
    if (pid <= 0 || ::kill(pid, 0) != 0) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::FILE *f = std::fopen(path, "re");
    if (f == nullptr) return false;
    char buf[512];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    // "pid (comm) S ...": comm may hold spaces and parentheses; the state follows the last ')'.
    const char *paren = std::strrchr(buf, ')');
    return paren == nullptr || paren[1] != ' ' || paren[2] != 'Z';
}

}  // namespace actionhost::common
