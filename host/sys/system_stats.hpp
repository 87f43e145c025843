// /server_info's resource figures, read from /proc and statvfs like psutil does for OpenHands.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>

namespace actionhost::host {

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
