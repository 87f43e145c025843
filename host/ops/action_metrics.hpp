// What GET /metrics counts as actions run: actionhost_actions_total{action,outcome} and the latency
// histogram actionhost_action_duration_seconds{action}. One per host core (two cores can share a
// process in the `cli` runtime), never a process-wide static.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace actionhost::host {

// The fixed set of outcome label values (docs/operations.md):
//   ok      — the action ran and its observation is not an error observation;
//   error   — an error observation: the plugin's own, or the host's (the plugin failed, is unavailable);
//   refused — an HTTP error before any plugin ran (unknown action, invalid arguments, shutting down);
//   denied  — the policy stage refused it (a rule, a policy module, a rejected or unanswered confirmation).
enum class ActionOutcome { Ok, Error, Refused, Denied };

class ActionMetrics {
  public:
    // Every action that can be counted, named up front so recording never allocates nor locks a map:
    // the declared actions of installed plugins and the host's own. Any other name (a client's typo)
    // counts as action="other", so a client cannot grow the label set.
    explicit ActionMetrics(const std::vector<std::string> &action_names);

    struct Slot;
    // The series of `action` (of "other" when it is not a known action), found before the action runs:
    // the router takes the request's document apart. Never null. Thread: any.
    const Slot *slot(std::string_view action) const;
    // One action answered after `elapsed`. Thread: any, concurrently.
    void record(const Slot *slot, ActionOutcome outcome, std::chrono::steady_clock::duration elapsed) const;

    // The two families as the exposition serialises them. Thread: any.
    std::vector<prometheus::MetricFamily> collect() const { return registry_.Collect(); }

    static constexpr std::string_view kOtherAction = "other";

    struct Slot {
        std::array<prometheus::Counter *, 4> by_outcome{};
        prometheus::Histogram *duration = nullptr;
    };

  private:
    prometheus::Registry registry_;
    std::map<std::string, Slot, std::less<>> slots_;  // filled in the constructor, then only read
};

}  // namespace actionhost::host
