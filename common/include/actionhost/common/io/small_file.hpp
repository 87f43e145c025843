// The text of a small kernel or configuration file (a cgroup's memory.max, /proc/self/oom_score_adj):
// read whole, up to a bound, without streams. "" when it cannot be opened or read — for these files an
// absent one means "not this kind of machine", which callers treat as unknown.
//
// Threads: any.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace actionhost::common::io {

inline std::string read_small_file(const std::string &path, size_t max_bytes = 64 * 1024) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    char buf[4096];
    while (text.size() < max_bytes) {  // bounded: each round adds bytes or ends
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    if (text.size() > max_bytes) text.resize(max_bytes);
    return text;
}

}  // namespace actionhost::common::io
