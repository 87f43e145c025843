// The local backend's warm pool (OpenHands' LocalRuntime warm servers): hosts started ahead
// of use, so a runtime whose configuration matches starts by taking one instead of waiting for a
// start. `[sandbox] warm_pool_size = N` keeps N ready per configuration, refilled in the background
// after each start. One pool per client process; its hosts are stopped when the process exits
// (and, started with PR_SET_PDEATHSIG from the pool's long-lived thread, die with a crashed client).
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "local_host.hpp"

namespace actionhost::local_runtime {

class WarmPool {
  public:
    // The process's pool. The first call keeps this module loaded for the life of the process.
    static WarmPool &instance();
    ~WarmPool();

    // A host started for `key`: a ready one, else one still starting (waited for up to `timeout_s`).
    // nullopt when the pool has none for the key.
    std::optional<LocalHost> take(const std::string &key, double timeout_s);
    // Starts hosts for `plan` in the background until `size` exist (ready or starting) for its key.
    void fill(const LaunchPlan &plan, size_t size);

  private:
    WarmPool() = default;
    struct Entry {
        LocalHost host;
        bool ready = false;
    };
    void work();

    std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::string, std::vector<Entry>> ready_;  // by pool key
    std::map<std::string, size_t> starting_;           // by pool key: queued or being started
    std::deque<LaunchPlan> queue_;
    pid_t starting_pid_ = -1;  // the host the worker is waiting for
    bool stopping_ = false;
    std::thread worker_;
};

}  // namespace actionhost::local_runtime
