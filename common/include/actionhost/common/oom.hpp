// The kernel's out-of-memory killer and the processes the host starts.
//
// Where a memory limit holds (the sandbox's and a container's memory cgroup), the OOM killer picks the
// process with the highest score. The host sits below its commands: it starts them with a higher
// oom_score_adj than its own, so a command that exhausts the limit is killed before the host that
// reports it (and the host then says what happened, from the cgroup's kill counter).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace actionhost::common {

// Makes `pid` (a child the host just started) a likelier OOM victim than the host: its oom_score_adj
// becomes the host's own plus 500 (at most 1000). Raising needs no privilege. Best effort; any thread.
void prefer_as_oom_victim(pid_t pid);

// This process's memory cgroup as the kernel counts it (v1 memory.oom_control, v2 memory.events),
// found once from /proc/self/cgroup. Thread-safe after construction. The kill counter is read on every
// command of a shell (twice), so its file stays open and each read is one pread: opening a cgroup file
// walks kernfs by path, and that walk was 14% of a bash action's time in the host.
class MemoryCgroup {
  public:
    MemoryCgroup();
    ~MemoryCgroup();
    MemoryCgroup(const MemoryCgroup &) = delete;
    MemoryCgroup &operator=(const MemoryCgroup &) = delete;
    // How many processes the OOM killer has killed in the cgroup so far; nullopt where not readable.
    std::optional<uint64_t> oom_kills() const;
    // The memory limit in bytes; nullopt when there is none or it cannot be read.
    std::optional<uint64_t> limit_bytes() const;
    // One sentence for an observation, e.g. "A process of this command was killed by the kernel's
    // out-of-memory killer (memory limit 192 MiB)." — "" when `before` equals the count now.
    std::string kill_note_since(std::optional<uint64_t> before) const;

  private:
    int events_fd_ = -1;      // memory.oom_control (v1) or memory.events (v2), open for the object's life
    std::string limit_file_;  // memory.limit_in_bytes (v1) or memory.max (v2)
};

}  // namespace actionhost::common
