#include "actionhost/common/oom.hpp"
#include "actionhost/common/io/small_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace actionhost::common {

namespace {

using io::flat_keyed_value;
using io::read_small_file;

}  // namespace

void prefer_as_oom_victim(pid_t pid) {
    int own = 0;
    std::istringstream(read_small_file("/proc/self/oom_score_adj")) >> own;
    const std::string value = std::to_string(std::min(1000, own + 500));
    const int fd = ::open(("/proc/" + std::to_string(pid) + "/oom_score_adj").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    (void)!::write(fd, value.data(), value.size());
    ::close(fd);
}

MemoryCgroup::MemoryCgroup() {
    // "N:memory:/path" (v1) or "0::/path" (v2); inside a cgroup namespace the path is "/".
    std::istringstream lines(read_small_file("/proc/self/cgroup"));
    std::string v1_path, v2_path;
    for (std::string line; std::getline(lines, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controllers == "memory" || controllers.find("memory,") == 0 || controllers.find(",memory") != std::string::npos)
            v1_path = path;
        else if (controllers.empty()) v2_path = path;
    }
    auto join = [](const std::string &root, const std::string &path) { return root + (path == "/" ? "" : path); };
    // The first cgroup whose kill counter opens is this process's; the open is also the readability check.
    auto use = [this](const std::string &dir, const char *events, const char *limit) {
        events_fd_ = ::open((dir + events).c_str(), O_RDONLY | O_CLOEXEC);
        if (events_fd_ >= 0) limit_file_ = dir + limit;
        return events_fd_ >= 0;
    };
    if (!v1_path.empty() && use(join("/sys/fs/cgroup/memory", v1_path), "/memory.oom_control", "/memory.limit_in_bytes"))
        return;
    for (const char *root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"})
        if (!v2_path.empty() && use(join(root, v2_path), "/memory.events", "/memory.max")) return;
}

MemoryCgroup::~MemoryCgroup() {
    if (events_fd_ >= 0) ::close(events_fd_);
}

std::optional<uint64_t> MemoryCgroup::oom_kills() const {
    if (events_fd_ < 0) return std::nullopt;
    // A cgroup file is regenerated when read from offset 0; pread keeps threads off a shared position.
    char buf[1024];
    const ssize_t n = ::pread(events_fd_, buf, sizeof buf, 0);
    if (n <= 0) return std::nullopt;
    return flat_keyed_value(std::string_view(buf, static_cast<size_t>(n)), "oom_kill");
}

std::optional<uint64_t> MemoryCgroup::limit_bytes() const {
    if (limit_file_.empty()) return std::nullopt;
    const std::string text = read_small_file(limit_file_);
    try {
        const uint64_t limit = std::stoull(text);
        return limit >= (uint64_t{1} << 62) ? std::nullopt : std::optional<uint64_t>(limit);  // v1's "no limit"
    } catch (const std::exception &) {
        return std::nullopt;  // v2's "max"
    }
}

std::string MemoryCgroup::kill_note_since(std::optional<uint64_t> before) const {
    const auto now = oom_kills();
    if (!before || !now || *now <= *before) return "";
    std::string note = "A process of this command was killed by the kernel's out-of-memory killer";
    if (const auto limit = limit_bytes()) note += " (memory limit " + std::to_string(*limit >> 20) + " MiB)";
    return note + ".";
}

}  // namespace actionhost::common
