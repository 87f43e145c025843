#include "actionhost/common/process_state.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <thread>

#include <cstdio>
#include <cstring>

namespace actionhost::common {

std::optional<ProcessStat> read_process_stat(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::FILE *f = std::fopen(path, "re");
    if (f == nullptr) return std::nullopt;
    char buf[1024];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    // "pid (comm) S ppid ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const char *close = std::strrchr(buf, ')');
    if (close == nullptr) return std::nullopt;
    ProcessStat stat;
    int ppid = 0;
    // Fields 3 (state) and 4 (ppid), then 5..21 skipped, then 22 (starttime).
    if (std::sscanf(close + 1, " %c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                    &stat.state, &ppid, &stat.start_ticks) < 2)
        return std::nullopt;
    stat.ppid = ppid;
    return stat;
}

bool process_is_live(pid_t pid) {
    if (pid <= 0 || ::kill(pid, 0) != 0) return false;
    const auto stat = read_process_stat(pid);
    return stat && stat->state != 'Z';
}

ReapWait wait_until_reapable(pid_t child, std::chrono::milliseconds bound) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    ReapWait result;
    for (;;) {
        const pid_t r = ::waitpid(child, &result.status, WNOHANG);
        if (r == child) {
            result.outcome = ReapWait::Reaped;
            return result;
        }
        if (r < 0 && errno == ECHILD) {
            result.outcome = ReapWait::NotOurChild;
            return result;
        }
        if (std::chrono::steady_clock::now() >= deadline) return result;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

}  // namespace actionhost::common
