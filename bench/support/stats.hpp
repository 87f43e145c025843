// Timing figures for benchmarks: medians and percentiles of repeated measurements, in milliseconds.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace actionhost::bench {

struct Figures {
    double median_ms = 0, p99_ms = 0, min_ms = 0;
    size_t samples = 0;
};

Figures figures(std::vector<double> samples_ms);
// Runs `fn` `warmup` times untimed, then `n` times timed.
Figures measure(int n, const std::function<void()> &fn, int warmup = 10);
void print_row(const std::string &name, const Figures &f);
void print_ratio(const std::string &what, const Figures &ours, const Figures &floor);

}  // namespace actionhost::bench
