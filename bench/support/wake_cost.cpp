#include "support/wake_cost.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

namespace actionhost::bench {
namespace {

using Clock = std::chrono::steady_clock;

bool pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

// Median one-way hand-off: half a ping-pong round trip between a thread on `a` and one on `b`.
std::optional<double> ping_pong_ms(int n, int a, int b) {
    cpu_set_t before;
    if (pthread_getaffinity_np(pthread_self(), sizeof before, &before) != 0) return std::nullopt;
    int ping[2], pong[2];
    if (pipe(ping) != 0) return std::nullopt;
    if (pipe(pong) != 0) {
        close(ping[0]);
        close(ping[1]);
        return std::nullopt;
    }
    bool echo_pinned = false;
    std::thread echo([&] {
        echo_pinned = pin_to(b);
        char c;
        // Ends when the main side closes its write end (read returns 0) or a write fails.
        while (read(ping[0], &c, 1) == 1)
            if (write(pong[1], &c, 1) != 1) break;
    });
    std::vector<double> trips;
    trips.reserve(static_cast<size_t>(n));
    if (pin_to(a)) {
        char c = 'x';
        for (int i = 0; i < n + 20; ++i) {  // 20 untimed: both threads placed and warm
            const auto t = Clock::now();
            if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) break;
            if (i >= 20) trips.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
        }
    }
    close(ping[1]);
    echo.join();
    close(ping[0]);
    close(pong[0]);
    close(pong[1]);
    pthread_setaffinity_np(pthread_self(), sizeof before, &before);  // the caller's thread as it was
    if (!echo_pinned || trips.size() != static_cast<size_t>(n)) return std::nullopt;
    std::nth_element(trips.begin(), trips.begin() + n / 2, trips.end());
    return trips[static_cast<size_t>(n / 2)] / 2;
}

}  // namespace

WakeCost measure_wake_cost(int n) {
    WakeCost w;
    cpu_set_t mine;
    if (n <= 0 || sched_getaffinity(0, sizeof mine, &mine) != 0) return w;
    std::vector<int> cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu)
        if (CPU_ISSET(cpu, &mine)) cpus.push_back(cpu);
    if (cpus.size() < 2) return w;
    const auto same = ping_pong_ms(n, cpus[0], cpus[0]);
    const auto other = ping_pong_ms(n, cpus[0], cpus[1]);
    if (!same || !other) return w;
    w.same_cpu_ms = *same;
    w.other_cpu_ms = *other;
    w.measured = true;
    return w;
}

std::optional<long> guest_halt_poll_ns() {
    std::ifstream in("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
    long ns = 0;
    if (in >> ns) return ns;
    return std::nullopt;
}

}  // namespace actionhost::bench
