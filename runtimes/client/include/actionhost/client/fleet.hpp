// Many runtimes at once: starting, running an action in, and stopping hundreds of sandboxes
// concurrently, for evaluation and training harnesses. At most `concurrency` operations are in flight
// (each mostly waits for its sandbox's processes, so a few per core keep the cores busy without piling
// up work); 0 means default_concurrency(). `ahctl start --count`, `ahctl run --all` and `ahctl stop`
// are built on these.
//
// The options' on_status and on_log callbacks are called from the worker threads, concurrently.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actionhost/client/runtime.hpp"

namespace actionhost::client {

// Four per core of this machine.
size_t default_concurrency();

// Calls fn(i) for every i in [0, count), on at most `concurrency` threads at a time; returns when all
// calls have returned. An exception thrown by fn is rethrown here (the first one) after the others ran.
void for_each_concurrently(size_t count, size_t concurrency, const std::function<void(size_t)> &fn);

struct StartedRuntime {
    std::unique_ptr<Runtime> runtime;  // connected; null when the start failed
    std::string error;
};
// Creates and connects `count` runtimes of `options`, each with a fresh session id (options.session_id
// is ignored). One entry per start, in order.
std::vector<StartedRuntime> start_runtimes(const RuntimeOptions &options, size_t count, size_t concurrency = 0);

struct SessionOutcome {
    std::string session_id;
    nlohmann::json observation;  // execute_in_sessions: the action's observation (null on error)
    std::string error;           // "" when it went well
};
// Reattaches to each kept-alive session of the state directory of `base` (core.state_dir), runs
// `action` in it and leaves it running. One entry per session id, in order.
std::vector<SessionOutcome> execute_in_sessions(const RuntimeOptions &base, const std::vector<std::string> &session_ids,
                                                const nlohmann::json &action, size_t concurrency = 0);
// Stops each kept-alive session (Runtime::stop_kept_alive: without connecting where the backend can).
std::vector<SessionOutcome> stop_sessions(const RuntimeOptions &base, const std::vector<std::string> &session_ids,
                                          size_t concurrency = 0);

// What every client start should do first: the configured backend's sweep of what ended sandboxes left
// (Runtime::reclaim_leftovers), the kept-alive starts whose client died before recording them (their
// sandboxes are stopped), and, with `thorough`, the sweep of every backend that has records and of the
// backends that keep sandboxes on this machine (sandbox, local). Returns the session ids whose records
// were dropped. Errors are the sweep's own business: never thrown.
std::vector<std::string> reclaim_leftovers(const RuntimeOptions &base, bool thorough);

}  // namespace actionhost::client
