#include "start_teardown.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

#include "runtime_harness.hpp"

namespace actionhost::bench {

namespace {
constexpr int kActionsPerStart = 20;
}

Figures bench_start_teardown(const std::string &label, const std::string &backend, int n,
                             const std::function<void(client::Config &)> &tweak, const RatioFloor *floor) {
    using Clock = std::chrono::steady_clock;
    auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    std::vector<double> start, teardown, action;
    for (int i = 0; i < n; ++i) {
        auto t0 = Clock::now();
        auto s = runtimes_test::start_runtime(backend, tweak);
        auto obs = runtimes_test::run(*s->runtime, "echo hi");
        start.push_back(ms_since(t0));
        if (obs.value("content", "") != "hi") std::fprintf(stderr, "%s: unexpected observation %s\n", label.c_str(), obs.dump().c_str());
        // Then the cost of an action once started: a `read` is the transport and the host, no shell.
        runtimes_test::run(*s->runtime, "echo hi > hi.txt");
        const nlohmann::json read = {{"action", "read"}, {"args", {{"path", "hi.txt"}}}};
        for (int k = 0; k < kActionsPerStart; ++k) {
            auto ta = Clock::now();
            auto r = s->runtime->execute(read);
            action.push_back(ms_since(ta));
            if (r.value("content", "") != "hi\n") std::fprintf(stderr, "%s: unexpected read %s\n", label.c_str(), r.dump().c_str());
        }
        auto t1 = Clock::now();
        s->runtime->close();
        teardown.push_back(ms_since(t1));
    }
    Figures fs = figures(start), ft = figures(teardown);
    print_row(label + ": start to first observation", fs);
    print_row(label + ": teardown", ft);
    print_row(label + ": a read action once started", figures(action));
    if (floor) print_ratio(label + " start vs " + floor->name, fs, floor->figures);
    return fs;
}

}  // namespace actionhost::bench
