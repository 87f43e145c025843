#include "ops/action_metrics.hpp"

#include <prometheus/family.h>

namespace actionhost::host {
namespace {

// Seconds: an `echo hi` answers in well under a millisecond, a build or a test run takes minutes, and
// run's hard timeout default is two minutes.
const prometheus::Histogram::BucketBoundaries &duration_buckets() {
    static const prometheus::Histogram::BucketBoundaries buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                                 0.25,   0.5,   1,      2.5,   5,    10,    30,    60,
                                                                 120,    300};
    return buckets;
}

constexpr std::array<const char *, 4> kOutcomeNames{"ok", "error", "refused", "denied"};

}  // namespace

ActionMetrics::ActionMetrics(const std::vector<std::string> &action_names) {
    auto &counts = prometheus::BuildCounter()
                       .Name("actionhost_actions_total")
                       .Help("Actions answered by POST /execute_action, by action type and outcome (ok, error, refused, denied)")
                       .Register(registry_);
    auto &durations = prometheus::BuildHistogram()
                          .Name("actionhost_action_duration_seconds")
                          .Help("Time from the host taking an action to its answer, waiting for the session's previous action included")
                          .Register(registry_);
    auto add = [&](const std::string &name) {
        if (slots_.count(name)) return;
        Slot &slot = slots_[name];
        for (size_t i = 0; i < kOutcomeNames.size(); ++i)
            slot.by_outcome[i] = &counts.Add({{"action", name}, {"outcome", kOutcomeNames[i]}});
        slot.duration = &durations.Add({{"action", name}}, duration_buckets());
    };
    for (const auto &name : action_names) add(name);
    add(std::string(kOtherAction));
}

const ActionMetrics::Slot *ActionMetrics::slot(std::string_view action) const {
    auto it = slots_.find(action);
    if (it == slots_.end()) it = slots_.find(kOtherAction);
    return &it->second;
}

void ActionMetrics::record(const Slot *slot, ActionOutcome outcome, std::chrono::steady_clock::duration elapsed) const {
    slot->by_outcome[static_cast<size_t>(outcome)]->Increment();
    slot->duration->Observe(std::chrono::duration<double>(elapsed).count());
}

}  // namespace actionhost::host
