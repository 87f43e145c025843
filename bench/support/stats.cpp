#include "support/stats.hpp"

#include <algorithm>
#include <cstdio>

namespace actionhost::bench {

Figures figures(std::vector<double> s) {
    Figures f;
    if (s.empty()) return f;
    std::sort(s.begin(), s.end());
    f.samples = s.size();
    f.min_ms = s.front();
    f.median_ms = s[s.size() / 2];
    f.p99_ms = s[std::min(s.size() - 1, static_cast<size_t>(static_cast<double>(s.size()) * 0.99))];
    return f;
}

Figures measure(int n, const std::function<void()> &fn, int warmup) {
    for (int i = 0; i < warmup; ++i) fn();
    std::vector<double> s;
    s.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        s.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return figures(std::move(s));
}

void print_row(const std::string &name, const Figures &f) {
    std::printf("  %-46s median %9.3f ms   p99 %9.3f ms   min %8.3f ms   (n=%zu)\n", name.c_str(), f.median_ms, f.p99_ms,
                f.min_ms, f.samples);
}

void print_ratio(const std::string &what, const Figures &ours, const Figures &floor) {
    std::printf("  ratio %-40s %6.2fx the floor (median %.3f ms vs %.3f ms)\n", what.c_str(),
                floor.median_ms > 0 ? ours.median_ms / floor.median_ms : 0.0, ours.median_ms, floor.median_ms);
}

}  // namespace actionhost::bench
