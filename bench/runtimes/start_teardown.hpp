// The measurement every runtime benchmark shares: start a backend, run `echo hi`, then 20 `read` actions,
// close it; n times. Prints the medians of start-to-first-observation, teardown and a read action once
// started, and the start's ratio to a floor measured in the same run.
#pragma once

#include <actionhost/client/config.hpp>
#include <functional>
#include <string>

#include "support/stats.hpp"

namespace actionhost::bench {

struct RatioFloor {
    const Figures &figures;
    std::string name;  // e.g. "bash spawn": the row reads "<label> start vs <name>"
};

// Returns the start figures. `tweak` edits the test configuration of runtime_harness.hpp.
Figures bench_start_teardown(const std::string &label, const std::string &backend, int n,
                             const std::function<void(client::Config &)> &tweak, const RatioFloor *floor);

}  // namespace actionhost::bench
