// Third-party policy modules run in a helper process, the policy worker (`actionhost --policy-worker FD`):
// a module that crashes or hangs costs the action it was asked about (refused, never run) and a restart of
// the worker, never the host (docs/design.md, "Policy"). This is the host's side: it spawns the worker
// once, asks it over a socketpair with a deadline, and restarts it after a crash or a missed deadline.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <actionhost/abi.h>
#include <actionhost/common/result.hpp>

#include "policy/policy_decision.hpp"
#include "sys/worker_spawn.hpp"

namespace actionhost::host {

struct PolicyQuery {
    std::string action_json;  // the normalised envelope
    std::string action, session, cwd, request_id;
};

class PolicyWorker {
  public:
    struct Settings {
        std::string program;                     // the actionhost executable
        std::vector<std::string> module_names;   // for the decisions of a worker that failed
        nlohmann::json init;                     // {"manifests": [...], "facts": {...}, "settings": {...}}
        std::chrono::milliseconds timeout{2000}; // per question
        std::chrono::milliseconds start_timeout{10000};
        std::function<void(ah_log_level_t, const std::string &)> log;
    };
    explicit PolicyWorker(Settings settings);
    ~PolicyWorker();  // kills the worker
    PolicyWorker(const PolicyWorker &) = delete;
    PolicyWorker &operator=(const PolicyWorker &) = delete;

    // Spawns the worker and has it load every module: the host's start fails with this error.
    common::Status start();
    // Every module's decision, in order. A worker that cannot be (re)started, dies, answers garbage or
    // misses the deadline gives one Deny by module "policy worker" saying so. Thread: any; questions are
    // serialised (the worker has one thread, as the ABI promises modules).
    std::vector<PolicyDecision> ask(const PolicyQuery &q);
    pid_t pid() const { return pid_; }  // tests: the worker's process

  private:
    common::Status spawn_locked();
    void kill_locked(const std::string &why);
    PolicyDecision failure(const PolicyQuery &q, const std::string &why) const;

    Settings s_;
    std::mutex mu_;
    WorkerChannel ch_;  // the process and our end of its socket (sys/worker_spawn.hpp)
    pid_t pid_ = -1;
    int fd_ = -1;       // ch_.fd's, while it runs
};

// The worker's side: reads the init frame from `fd`, loads the modules, answers questions until the
// host closes the socket. Returns the process's exit code.
int run_policy_worker(int fd);

}  // namespace actionhost::host
