#include "sys/system_stats.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace actionhost::host {
namespace {

double process_cpu_seconds() {
    std::ifstream in("/proc/self/stat");
    std::string line;
    std::getline(in, line);
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const size_t close = line.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream ss(line.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && ss >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

unsigned long long meminfo_total_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    unsigned long long kb = 0;
    while (in >> key >> kb) {
        if (key == "MemTotal:") return kb * 1024;
        in.ignore(256, '\n');
    }
    return 0;
}

}  // namespace

ProcessFigures own_process_figures() {
    ProcessFigures f;
    f.cpu_seconds = process_cpu_seconds();
    unsigned long long vms_pages = 0, rss_pages = 0;
    {
        std::ifstream in("/proc/self/statm");
        in >> vms_pages >> rss_pages;
    }
    const unsigned long long page = static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
    f.rss_bytes = rss_pages * page;
    f.virtual_bytes = vms_pages * page;
    std::ifstream in("/proc/self/io");
    std::string key;
    unsigned long long v = 0;
    while (in >> key >> v) {
        if (key == "read_bytes:") f.read_bytes = v;
        if (key == "write_bytes:") f.write_bytes = v;
    }
    return f;
}

std::optional<FilesystemFigures> filesystem_figures(const std::string &path) {
    struct statvfs vfs{};
    if (statvfs(path.c_str(), &vfs) != 0) return std::nullopt;
    FilesystemFigures f;
    f.total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    f.free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    f.used_bytes = (static_cast<uint64_t>(vfs.f_blocks) - vfs.f_bfree) * vfs.f_frsize;
    return f;
}

nlohmann::json SystemStats::resources() {
    const ProcessFigures p = own_process_figures();
    double cpu_percent = 0;
    {
        std::lock_guard lock(mu_);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        if (last_wall_ > 0 && wall > last_wall_) cpu_percent = 100.0 * (p.cpu_seconds - last_cpu_) / (wall - last_wall_);
        last_wall_ = wall;
        last_cpu_ = p.cpu_seconds;
    }
    const unsigned long long total = meminfo_total_bytes();
    const FilesystemFigures d = filesystem_figures("/").value_or(FilesystemFigures{});
    const double disk_percent = (d.used_bytes + d.free_bytes)
                                    ? 100.0 * static_cast<double>(d.used_bytes) / static_cast<double>(d.used_bytes + d.free_bytes)
                                    : 0;
    return {{"cpu_percent", cpu_percent},
            {"memory", {{"rss", p.rss_bytes}, {"vms", p.virtual_bytes}, {"percent", total ? 100.0 * static_cast<double>(p.rss_bytes) / static_cast<double>(total) : 0.0}}},
            {"disk", {{"total", d.total_bytes}, {"used", d.used_bytes}, {"free", d.free_bytes}, {"percent", disk_percent}}},
            {"io", {{"read_bytes", p.read_bytes}, {"write_bytes", p.write_bytes}}}};
}

}  // namespace actionhost::host
