// The host process's and its filesystem's figures, read from /proc and statvfs like psutil does for
// OpenHands: /server_info's "resources" and GET /metrics' actionhost_host_* gauges.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace actionhost::host {

// This process: /proc/self/stat, statm and io.
struct ProcessFigures {
    double cpu_seconds = 0;  // user + system
    uint64_t rss_bytes = 0, virtual_bytes = 0;
    uint64_t read_bytes = 0, write_bytes = 0;  // storage I/O (0 where /proc/self/io is not readable)
};
ProcessFigures own_process_figures();

// The filesystem holding `path`; nullopt when statvfs fails.
struct FilesystemFigures {
    uint64_t total_bytes = 0, used_bytes = 0;
    uint64_t free_bytes = 0;  // available to an unprivileged user (psutil's "free")
};
std::optional<FilesystemFigures> filesystem_figures(const std::string &path);

class SystemStats {
  public:
    // {"cpu_percent","memory":{"rss","vms","percent"},"disk":{...},"io":{...}}. cpu_percent is the
    // process's CPU use since the previous call (0.0 on the first), as psutil's cpu_percent(None).
    nlohmann::json resources();

  private:
    std::mutex mu_;
    double last_wall_ = 0, last_cpu_ = 0;
};

}  // namespace actionhost::host
