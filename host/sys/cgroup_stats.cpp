#include "sys/cgroup_stats.hpp"

#include <actionhost/common/io/small_file.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace actionhost::host {
namespace {

using common::io::flat_keyed_value;
using common::io::read_small_file;

std::optional<uint64_t> number(std::string_view text) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data()) return std::nullopt;
    return v;
}

std::optional<uint64_t> number_file(const std::string &path) { return number(read_small_file(path)); }

// v1 writes a huge number for "no limit", v2 "max".
std::optional<uint64_t> limit_file(const std::string &path) {
    const auto v = number_file(path);
    return v && *v < (uint64_t{1} << 62) ? v : std::nullopt;
}

bool is_dir(const std::string &path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

OwnCgroups::OwnCgroups() {
    // "N:controller[,controller]:/path" (v1) or "0::/path" (v2); inside a cgroup namespace the path is "/".
    std::istringstream lines(read_small_file("/proc/self/cgroup"));
    std::string v2_path;
    auto join = [](const std::string &root, const std::string &path) { return root + (path == "/" ? "" : path); };
    for (std::string line; std::getline(lines, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controllers.empty()) {
            v2_path = path;
            continue;
        }
        std::vector<std::string> names;
        std::istringstream split(controllers);
        for (std::string n; std::getline(split, n, ',');) names.push_back(n);
        for (const auto &n : names) {
            // The hierarchy is mounted under its controller list ("cpu,cpuacct"), often linked by each name.
            std::string dir = join("/sys/fs/cgroup/" + controllers, path);
            if (!is_dir(dir)) dir = join("/sys/fs/cgroup/" + n, path);
            if (n == "memory") memory_dir_ = dir;
            if (n == "cpuacct") cpu_dir_ = dir;
            if (n == "pids") pids_dir_ = dir;
        }
    }
    if (v2_path.empty()) return;
    // A controller v1 does not hold may be on the unified hierarchy.
    for (const char *root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
        const std::string dir = join(root, v2_path);
        const std::string enabled = read_small_file(dir + "/cgroup.controllers");
        if (enabled.empty()) continue;
        auto has = [&](const std::string &c) {
            std::istringstream words(enabled);
            for (std::string w; words >> w;)
                if (w == c) return true;
            return false;
        };
        if (memory_dir_.empty() && has("memory")) memory_dir_ = dir, memory_v2_ = true;
        if (cpu_dir_.empty()) cpu_dir_ = dir, cpu_v2_ = true;  // cpu.stat's usage_usec is there without the cpu controller
        if (pids_dir_.empty() && has("pids")) pids_dir_ = dir;
        break;
    }
}

CgroupFigures OwnCgroups::read() const {
    CgroupFigures f;
    if (!cpu_dir_.empty()) {
        if (cpu_v2_) {
            if (auto usec = flat_keyed_value(read_small_file(cpu_dir_ + "/cpu.stat"), "usage_usec")) f.cpu_seconds = static_cast<double>(*usec) / 1e6;
        } else if (auto ns = number_file(cpu_dir_ + "/cpuacct.usage")) {
            f.cpu_seconds = static_cast<double>(*ns) / 1e9;
        }
    }
    if (!memory_dir_.empty()) {
        f.memory_bytes = number_file(memory_dir_ + (memory_v2_ ? "/memory.current" : "/memory.usage_in_bytes"));
        f.memory_limit_bytes = limit_file(memory_dir_ + (memory_v2_ ? "/memory.max" : "/memory.limit_in_bytes"));
    }
    if (!pids_dir_.empty()) {
        f.pids = number_file(pids_dir_ + "/pids.current");
        f.pids_limit = limit_file(pids_dir_ + "/pids.max");
    }
    return f;
}

}  // namespace actionhost::host
