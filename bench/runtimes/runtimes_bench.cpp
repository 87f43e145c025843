// Start to first observation (`echo hi`) and teardown per runtime backend, medians in one run, with the
// floor of spawning `bash -c 'echo hi'` on this machine measured in the same run.
//   ah_bench_runtimes [iterations=10]      (docker: a running engine, else dockerd started for the run)
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "support/stats.hpp"

using namespace actionhost::bench;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void spawn_echo() {
    pid_t p = fork();
    if (p == 0) {
        execl("/bin/bash", "bash", "-c", "echo hi > /dev/null", static_cast<char *>(nullptr));
        _exit(127);
    }
    waitpid(p, nullptr, 0);
}

void bench_backend(const std::string &backend, int n, const Figures &floor) {
    std::vector<double> start, teardown;
    for (int i = 0; i < n; ++i) {
        auto t0 = Clock::now();
        auto s = runtimes_test::start_runtime(backend);
        auto obs = runtimes_test::run(*s->runtime, "echo hi");
        start.push_back(ms_since(t0));
        if (obs.value("content", "") != "hi") std::fprintf(stderr, "%s: unexpected observation %s\n", backend.c_str(), obs.dump().c_str());
        auto t1 = Clock::now();
        s->runtime->close();
        teardown.push_back(ms_since(t1));
    }
    Figures fs = figures(start), ft = figures(teardown);
    print_row(backend + ": start to first observation", fs);
    print_row(backend + ": teardown", ft);
    print_ratio(backend + " start vs bash spawn", fs, floor);
}

}  // namespace

int main(int argc, char **argv) {
    int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    Figures floor = measure(n * 5, spawn_echo, 3);
    print_row("floor: spawn bash -c 'echo hi'", floor);
    bench_backend("local", n, floor);
    bench_backend("sandbox", n, floor);
    // Uses a running engine or starts dockerd for the run (stopped after); imports the base image.
    runtimes_test::DockerForTests docker;
    if (docker.available()) bench_backend("docker", std::max(3, n / 2), floor);
    else std::printf("docker: skipped (%s)\n", docker.why_not().c_str());
    return 0;
}
