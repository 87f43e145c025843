// Many sandboxes on one machine at once, through the client library's parallel lifecycle
// (actionhost/client/fleet.hpp): for each N, start N kept-alive sandboxes (at most --jobs at once),
// measure the machine memory they take (/proc/meminfo before and after: MemTotal - MemAvailable, not
// sums of RSS), send `echo hi` to all of them concurrently, then stop them all, and check that nothing
// is left. Printed against the rate of spawning `bash -c true` measured in the same run (sequentially
// and with the same concurrency). Figures only: it never fails on time.
//   ah_bench_density [--jobs J] [N ...]      (default: 100 500 1000)
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/fleet.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/client/wire_client.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "support/stats.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost;
using namespace actionhost::bench;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Memory the machine has given away, in kB: what is no longer available to a new program.
long machine_used_kb() {
    std::ifstream in("/proc/meminfo");
    long total = 0, available = 0;
    std::string key;
    long value = 0;
    std::string unit;
    while (in >> key >> value >> unit) {
        if (key == "MemTotal:") total = value;
        if (key == "MemAvailable:") available = value;
    }
    return total - available;
}

void spawn_true() {
    const pid_t p = fork();
    if (p == 0) {
        execl("/bin/bash", "bash", "-c", "true", static_cast<char *>(nullptr));
        _exit(127);
    }
    waitpid(p, nullptr, 0);
}

// Spawns per second of `bash -c true`, `jobs` at a time.
double spawn_rate(size_t count, size_t jobs) {
    const auto t0 = Clock::now();
    client::for_each_concurrently(count, jobs, [](size_t) { spawn_true(); });
    return static_cast<double>(count) / seconds_since(t0);
}

// What the sandboxes of this run left: run directories under `tmp`, records under `state`, cgroups.
std::string leftovers(const std::string &tmp, const std::string &state) {
    size_t dirs = 0, records = 0, groups = 0;
    for (const auto &e : fs::directory_iterator(tmp))
        if (e.path().filename().string().find("ah-sandbox-") != std::string::npos) ++dirs;
    for (const auto &e : fs::directory_iterator(state))
        if (e.path().extension() == ".json" || e.path().extension() == ".starting") ++records;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/sys/fs/cgroup/memory/actionhost", ec))
        if (e.path().filename().string().rfind("ah-", 0) == 0) ++groups;
    if (dirs + records + groups == 0) return "nothing";
    return std::to_string(dirs) + " run directories, " + std::to_string(records) + " records, " + std::to_string(groups) +
           " cgroups (any user's)";
}

void run_density(size_t n, size_t jobs, double bash_rate_seq, double bash_rate_par) {
    testing::TempDir tmp("ahdensity-tmp"), state("ahdensity-state");
    setenv("TMPDIR", tmp.path().c_str(), 1);
    client::RuntimeOptions options = runtimes_test::test_runtime_options("sandbox", "", state.path());
    options.config.set("core.workspace_base", "");  // each its own temporary workspace
    options.config.set("sandbox.keep_runtime_alive", true);
    std::printf("N = %zu sandboxes, %zu at a time\n", n, jobs);

    malloc_trim(0);
    const long used_before = machine_used_kb();
    std::vector<double> start_ms(n, 0);
    std::vector<std::string> ids(n);
    std::atomic<size_t> failed{0};
    std::mutex error_mu;
    std::string first_error;
    const auto t_start = Clock::now();
    client::for_each_concurrently(n, jobs, [&](size_t i) {
        const auto t0 = Clock::now();
        try {
            auto rt = client::Runtime::create(options);
            rt->connect();
            ids[i] = rt->session_id();
            rt->close();  // kept alive: no client object stays behind in this process
            start_ms[i] = ms_since(t0);
        } catch (const std::exception &e) {
            ++failed;
            std::lock_guard lock(error_mu);
            if (first_error.empty()) first_error = e.what();
        }
    });
    const double start_s = seconds_since(t_start);
    malloc_trim(0);
    // Idle: let the hosts finish their start-up work before reading the memory they hold.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const long used_after = machine_used_kb();
    const size_t started = n - failed.load();
    std::printf("  started %zu of %zu in %.2f s: %.1f sandboxes/s   (bash -c true: %.0f/s one at a time, %.0f/s %zu at a time)\n",
                started, n, start_s, static_cast<double>(started) / start_s, bash_rate_seq, bash_rate_par, jobs);
    if (failed) std::printf("  first failure: %s\n", first_error.c_str());
    print_row("  one start (create, connect, close kept)", figures(std::vector<double>(start_ms.begin(), start_ms.end())));
    std::printf("  machine memory: %.2f MB per sandbox (MemTotal - MemAvailable: %+ld kB for %zu)\n",
                started ? static_cast<double>(used_after - used_before) / 1024.0 / static_cast<double>(started) : 0.0,
                used_after - used_before, started);

    // echo hi in every sandbox, as many in flight as there are sandboxes up to 64.
    auto records = client::StateStore(state.path()).list();
    std::vector<double> echo_ms(records.size(), 0);
    std::atomic<size_t> wrong{0};
    const auto t_echo = Clock::now();
    client::for_each_concurrently(records.size(), std::min<size_t>(64, records.size()), [&](size_t i) {
        try {
            client::WireClient wire(records[i].value("url", ""), records[i].value("session_api_key", ""));
            const auto t0 = Clock::now();
            auto obs = wire.execute({{"action", "run"}, {"args", {{"command", "echo hi"}, {"is_input", false}, {"blocking", false}}}});
            echo_ms[i] = ms_since(t0);
            if (obs.value("content", "") != "hi") ++wrong;
        } catch (const std::exception &) {
            ++wrong;
        }
    });
    const double echo_s = seconds_since(t_echo);
    print_row("  `echo hi` in each, 64 in flight", figures(echo_ms));
    std::printf("  all %zu answered in %.2f s%s\n", records.size(), echo_s,
                wrong ? (", " + std::to_string(wrong.load()) + " wrong or failed").c_str() : "");

    std::vector<double> stop_ms(ids.size(), 0);
    const auto t_stop = Clock::now();
    client::for_each_concurrently(ids.size(), jobs, [&](size_t i) {
        if (ids[i].empty()) return;
        client::RuntimeOptions one = options;
        one.session_id = ids[i];
        one.config.set("sandbox.keep_runtime_alive", false);
        const auto t0 = Clock::now();
        try {
            client::Runtime::create(std::move(one))->stop_kept_alive();
        } catch (const std::exception &e) {
            std::printf("  stop %s: %s\n", ids[i].c_str(), e.what());
        }
        stop_ms[i] = ms_since(t0);
    });
    const double stop_s = seconds_since(t_stop);
    print_row("  one stop (teardown)", figures(stop_ms));
    std::printf("  stopped all %zu in %.2f s (%.1f/s); left behind: %s\n", ids.size(), stop_s, static_cast<double>(ids.size()) / stop_s,
                leftovers(tmp.path(), state.path()).c_str());
    setenv("TMPDIR", "/tmp", 1);
}

}  // namespace

int main(int argc, char **argv) {
    size_t jobs = client::default_concurrency();
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
        else sizes.push_back(static_cast<size_t>(std::max(1, std::atoi(argv[i]))));
    }
    if (sizes.empty()) sizes = {100, 500, 1000};
    // A thousand sandboxes are a few thousand descriptors in flight for this client.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    const double bash_seq = spawn_rate(200, 1), bash_par = spawn_rate(400, jobs);
    for (size_t n : sizes) run_density(n, jobs, bash_seq, bash_par);
    return 0;
}
