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

nlohmann::json SystemStats::resources() {
    double cpu_percent = 0;
    {
        std::lock_guard lock(mu_);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        const double cpu = process_cpu_seconds();
        if (last_wall_ > 0 && wall > last_wall_) cpu_percent = 100.0 * (cpu - last_cpu_) / (wall - last_wall_);
        last_wall_ = wall;
        last_cpu_ = cpu;
    }
    unsigned long long vms_pages = 0, rss_pages = 0;
    {
        std::ifstream in("/proc/self/statm");
        in >> vms_pages >> rss_pages;
    }
    const unsigned long long page = static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
    const unsigned long long rss = rss_pages * page, vms = vms_pages * page;
    const unsigned long long total = meminfo_total_bytes();

    struct statvfs vfs{};
    unsigned long long dtotal = 0, dfree = 0, dused = 0;
    if (statvfs("/", &vfs) == 0) {
        dtotal = static_cast<unsigned long long>(vfs.f_blocks) * vfs.f_frsize;
        dfree = static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize;
        dused = (static_cast<unsigned long long>(vfs.f_blocks) - vfs.f_bfree) * vfs.f_frsize;
    }
    unsigned long long read_bytes = 0, write_bytes = 0;
    {
        std::ifstream in("/proc/self/io");
        std::string key;
        unsigned long long v = 0;
        while (in >> key >> v) {
            if (key == "read_bytes:") read_bytes = v;
            if (key == "write_bytes:") write_bytes = v;
        }
    }
    const double disk_percent = (dused + dfree) ? 100.0 * static_cast<double>(dused) / static_cast<double>(dused + dfree) : 0;
    return {{"cpu_percent", cpu_percent},
            {"memory", {{"rss", rss}, {"vms", vms}, {"percent", total ? 100.0 * static_cast<double>(rss) / static_cast<double>(total) : 0.0}}},
            {"disk", {{"total", dtotal}, {"used", dused}, {"free", dfree}, {"percent", disk_percent}}},
            {"io", {{"read_bytes", read_bytes}, {"write_bytes", write_bytes}}}};
}

}  // namespace actionhost::host
