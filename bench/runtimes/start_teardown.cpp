#include "start_teardown.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

#include "runtime_harness.hpp"

namespace actionhost::bench {

Figures bench_start_teardown(const std::string &label, const std::string &backend, int n,
                             const std::function<void(client::Config &)> &tweak, const RatioFloor *floor) {
    using Clock = std::chrono::steady_clock;
    auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    std::vector<double> start, teardown;
    for (int i = 0; i < n; ++i) {
        auto t0 = Clock::now();
        auto s = runtimes_test::start_runtime(backend, tweak);
        auto obs = runtimes_test::run(*s->runtime, "echo hi");
        start.push_back(ms_since(t0));
        if (obs.value("content", "") != "hi") std::fprintf(stderr, "%s: unexpected observation %s\n", label.c_str(), obs.dump().c_str());
        auto t1 = Clock::now();
        s->runtime->close();
        teardown.push_back(ms_since(t1));
    }
    Figures fs = figures(start), ft = figures(teardown);
    print_row(label + ": start to first observation", fs);
    print_row(label + ": teardown", ft);
    if (floor) print_ratio(label + " start vs " + floor->name, fs, floor->figures);
    return fs;
}

}  // namespace actionhost::bench
