// The figures of the cgroups the host runs in: in a `sandbox` backend's sandbox or a container those
// are the sandbox's own (the cgroup namespace shows them at /sys/fs/cgroup/<controller>), so they count
// every process of the sandbox, the agent's commands included. GET /metrics' actionhost_sandbox_*.
// cgroup v1 (memory, cpuacct, pids) or v2, whichever holds each controller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace actionhost::host {

struct CgroupFigures {
    std::optional<double> cpu_seconds;                 // v1 cpuacct.usage, v2 cpu.stat usage_usec
    std::optional<uint64_t> memory_bytes;              // v1 memory.usage_in_bytes, v2 memory.current
    std::optional<uint64_t> memory_limit_bytes;        // none when unlimited
    std::optional<uint64_t> pids, pids_limit;          // pids.current, pids.max (none when "max")
};

class OwnCgroups {
  public:
    // Finds the directories once, from /proc/self/cgroup.
    OwnCgroups();
    // Reads the figures now; a figure whose file cannot be read is left out. Thread: any.
    CgroupFigures read() const;

  private:
    std::string memory_dir_, cpu_dir_, pids_dir_;
    bool memory_v2_ = false, cpu_v2_ = false;
};

}  // namespace actionhost::host
