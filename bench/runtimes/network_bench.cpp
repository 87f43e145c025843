// The network of a `sandbox` with network = "internet" (pasta and the egress filter), each figure against
// its floor in the same run (figures only: it never fails on time):
//   - a 100 MB download over HTTP from a test host (198.51.100.2, a network namespace made here behind a
//     veth pair) by a program inside the sandbox vs the same program on the machine;
//   - `echo hi` once started, network = "internet" vs "none" (the network mode must not change it).
// Needs root, `ip`, pasta (Debian's passt) and curl; says so and stops otherwise.
//   ah_bench_network [iterations=5]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "network_test_host.hpp"
#include "runtime_harness.hpp"
#include "support/random_file.hpp"
#include "support/run_process.hpp"
#include "support/stats.hpp"

using namespace actionhost;
using namespace actionhost::bench;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

constexpr size_t kDownloadBytes = 100u << 20;

const std::string kCurl = "curl -s -o /dev/null -w '%{size_download}' http://198.51.100.2:8080/big";

void bench_download(int n) {
    runtimes_test::NetworkTestHost host;
    if (!host.ok()) {
        std::printf("download: skipped (the test host did not come up)\n");
        return;
    }
    write_random_file(host.www() + "/big", kDownloadBytes);
    std::vector<double> machine;
    for (int i = 0; i < n; ++i) {
        const auto t0 = Clock::now();
        const auto r = testing::run_process({"/bin/sh", "-c", kCurl}, 120);
        machine.push_back(ms_since(t0));
        if (r.output != std::to_string(kDownloadBytes)) std::printf("download on the machine: unexpected '%s'\n", r.output.c_str());
    }
    const Figures floor = figures(machine);
    print_row("floor: the machine downloads 100 MB from the test host (curl)", floor);
    auto s = runtimes_test::start_runtime("sandbox", [](client::Config &c) { c.set("sandbox.network", "internet"); });
    std::vector<double> inside;
    for (int i = 0; i < n; ++i) {
        const auto t0 = Clock::now();
        const auto obs = runtimes_test::run(*s->runtime, kCurl, 120);
        inside.push_back(ms_since(t0));
        if (obs.value("content", "") != std::to_string(kDownloadBytes)) std::printf("download in the sandbox: unexpected %s\n", obs.dump().c_str());
    }
    const Figures ours = figures(inside);
    print_row("sandbox (internet): the same download from inside (a run action)", ours);
    print_ratio("download time, sandbox vs machine (throughput is its inverse: >= 50 % means <= 2x)", ours, floor);
}

Figures echo_latency(const std::string &network) {
    auto s = runtimes_test::start_runtime("sandbox", [&](client::Config &c) { c.set("sandbox.network", network); });
    return measure(200, [&] { runtimes_test::run(*s->runtime, "echo hi"); }, 20);
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    if (geteuid() != 0 || std::system("command -v pasta >/dev/null && command -v ip >/dev/null && command -v curl >/dev/null") != 0) {
        std::printf("ah_bench_network: skipped (needs root, ip, pasta and curl)\n");
        return 0;
    }
    bench_download(n);
    const Figures none = echo_latency("none");
    print_row("echo hi once started, network = none", none);
    const Figures internet = echo_latency("internet");
    print_row("echo hi once started, network = internet", internet);
    print_ratio("echo hi, internet vs none", internet, none);
    return 0;
}
