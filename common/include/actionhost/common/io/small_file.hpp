// Small kernel files (a cgroup's memory.max or cpu.stat, /proc/self/oom_score_adj): the text of one,
// read whole, up to a bound, without streams, and the value of a line of a flat-keyed one. "" when it cannot be opened or read — for these files an
// absent one means "not this kind of machine", which callers treat as unknown.
//
// Threads: any.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// Replaces the text of a small file (a cgroup's freezer.state, pids.max) with `text`, written whole;
// false when it cannot be opened or the kernel refuses the value (a write error).
inline bool write_small_file(const std::string &path, std::string_view text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    size_t done = 0;
    for (int tries = 0; done < text.size() && tries < 1000; ++tries) {  // bounded: a kernel file takes it at once
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    const bool closed = ::close(fd) == 0;
    return done == text.size() && closed;
}

// The value of the line "<name> <value>" of a flat-keyed kernel file (a cgroup's memory.stat,
// cpu.stat, memory.events); nullopt when no such line holds a whole number.
inline std::optional<uint64_t> flat_keyed_value(std::string_view text, std::string_view name) {
    while (!text.empty()) {
        const size_t eol = std::min(text.find('\n'), text.size());
        std::string_view line = text.substr(0, eol);
        text.remove_prefix(std::min(eol + 1, text.size()));
        if (line.size() <= name.size() || line.substr(0, name.size()) != name || line[name.size()] != ' ') continue;
        line.remove_prefix(name.size() + 1);
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
        if (ec != std::errc() || end == line.data()) return std::nullopt;
        return value;
    }
    return std::nullopt;
}

}  // namespace actionhost::common::io
