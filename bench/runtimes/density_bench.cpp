// Many sandboxes on one machine at once, through the client library's parallel lifecycle
// (actionhost/client/fleet.hpp): for each N, start N kept-alive sandboxes (at most --jobs at once),
// measure the machine memory they take (/proc/meminfo before and after: MemTotal - MemAvailable, not
// sums of RSS), send `echo hi` to all of them concurrently, then stop them all, and check that nothing
// is left. Printed against the rate of spawning `bash -c true` measured in the same run (sequentially
// and with the same concurrency). Figures only: it never fails on time.
// With --image, every sandbox runs on one image (a busybox OCI layout made here, imported into the store
// once): the image's layers shared, each sandbox an overlay with an upper directory of its own.
//   ah_bench_density [--jobs J] [--image] [N ...]      (default: 100 500 1000)
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/fleet.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/client/wire_client.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "support/stats.hpp"
#include "support/oci_layout.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

using namespace actionhost;
using namespace actionhost::bench;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Memory the machine has given away, in kB: what is no longer available to a new program.
long machine_used_kb_now() {
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

// The same as the median of 9 readings 100 ms apart: other programs of a shared machine come and go.
long machine_used_kb() {
    std::vector<long> readings;
    for (int i = 0; i < 9; ++i) {
        if (i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        readings.push_back(machine_used_kb_now());
    }
    std::sort(readings.begin(), readings.end());
    return readings[readings.size() / 2];
}

void spawn_true() {
    const pid_t p = fork();
    if (p == 0) {
        execl("/bin/bash", "bash", "-c", "true", static_cast<char *>(nullptr));
        _exit(127);
    }
    waitpid(p, nullptr, 0);
}

// Reads (sandboxes running, machine memory used) every 20 ms while the sandboxes start: the slope of the
// least-squares line through them is the memory per sandbox, and what other programs of a shared machine
// do meanwhile averages out instead of landing whole in a before/after difference.
class MemorySampler {
  public:
    explicit MemorySampler(const std::atomic<size_t> &running) : running_(running), thread_([this] { loop(); }) {}
    ~MemorySampler() { stop(); }
    void stop() {
        done_ = true;
        if (thread_.joinable()) thread_.join();
    }
    // kB per sandbox; 0 when there were too few distinct points.
    double slope_kb() const {
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const auto &[x, y] : points_) {
            n += 1;
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        const double d = n * sxx - sx * sx;
        return n > 2 && d > 0 ? (n * sxy - sx * sy) / d : 0;
    }

  private:
    void loop() {
        for (int i = 0; i < 1'000'000 && !done_; ++i) {
            points_.emplace_back(static_cast<double>(running_.load()), static_cast<double>(machine_used_kb_now()));
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    const std::atomic<size_t> &running_;
    std::atomic<bool> done_{false};
    std::vector<std::pair<double, double>> points_;
    std::thread thread_;
};

// For comparison only (the figure above is the machine's): what the sandboxes' own processes hold, in kB
// per sandbox — proportional set sizes, page tables and kernel stacks of ah-sandbox-init, pid 1, the host
// and bash, found from the kept-alive records.
double processes_kb_per_sandbox(const std::string &state_dir) {
    auto field_kb = [](const std::string &path, const std::string &key) {
        std::ifstream in(path);
        for (std::string line; std::getline(in, line);)
            if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
        return 0L;
    };
    std::function<void(pid_t, std::vector<pid_t> &)> tree = [&](pid_t pid, std::vector<pid_t> &out) {
        out.push_back(pid);
        std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
        for (pid_t child; children >> child;) tree(child, out);
    };
    double total = 0;
    size_t sandboxes = 0;
    for (const auto &e : fs::directory_iterator(state_dir)) {
        if (e.path().string().find(".backend.json") == std::string::npos) continue;
        std::ifstream in(e.path());
        const auto record = nlohmann::json::parse(in, nullptr, false);
        if (!record.is_object()) continue;
        std::vector<pid_t> pids;
        tree(record.value("pid", 0), pids);
        for (pid_t pid : pids) {
            const std::string proc = "/proc/" + std::to_string(pid);
            total += static_cast<double>(field_kb(proc + "/smaps_rollup", "Pss:") + field_kb(proc + "/status", "VmPTE:") +
                                         16 * field_kb(proc + "/status", "Threads:"));
        }
        ++sandboxes;
    }
    return sandboxes ? total / static_cast<double>(sandboxes) : 0;
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

void run_density(size_t n, size_t jobs, double bash_rate_seq, double bash_rate_par, const std::string &image, const std::string &store) {
    testing::TempDir tmp("ahdensity-tmp"), state("ahdensity-state");
    setenv("TMPDIR", tmp.path().c_str(), 1);
    client::RuntimeOptions options = runtimes_test::test_runtime_options("sandbox", "", state.path());
    options.config.set("core.workspace_base", "");  // each its own temporary workspace
    options.config.set("sandbox.keep_runtime_alive", true);
    if (!image.empty()) {
        options.config.set("sandbox.base_container_image", image);
        options.config.set("sandbox.image_store", store);
    }
    std::printf("N = %zu sandboxes%s, %zu at a time\n", n, image.empty() ? "" : " of one image", jobs);

    malloc_trim(0);
    const long used_before = machine_used_kb();
    std::vector<double> start_ms(n, 0);
    std::vector<std::string> ids(n);
    std::atomic<size_t> failed{0}, running{0};
    std::mutex error_mu;
    std::string first_error;
    MemorySampler sampler(running);
    const auto t_start = Clock::now();
    client::for_each_concurrently(n, jobs, [&](size_t i) {
        const auto t0 = Clock::now();
        try {
            auto rt = client::Runtime::create(options);
            rt->connect();
            ids[i] = rt->session_id();
            rt->close();  // kept alive: no client object stays behind in this process
            start_ms[i] = ms_since(t0);
            ++running;
        } catch (const std::exception &e) {
            ++failed;
            std::lock_guard lock(error_mu);
            if (first_error.empty()) first_error = e.what();
        }
    });
    const double start_s = seconds_since(t_start);
    sampler.stop();
    malloc_trim(0);
    // Idle: let the hosts finish their start-up work before reading the memory they hold.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const long used_after = machine_used_kb();
    const size_t started = n - failed.load();
    std::printf("  started %zu of %zu in %.2f s: %.1f sandboxes/s   (bash -c true: %.0f/s one at a time, %.0f/s %zu at a time)\n",
                started, n, start_s, static_cast<double>(started) / start_s, bash_rate_seq, bash_rate_par, jobs);
    if (failed) std::printf("  first failure: %s\n", first_error.c_str());
    print_row("  one start (create, connect, close kept)", figures(std::vector<double>(start_ms.begin(), start_ms.end())));
    auto per_sandbox_mb = [started](long kb) { return started ? static_cast<double>(kb) / 1024.0 / static_cast<double>(started) : 0.0; };

    const double processes_kb = processes_kb_per_sandbox(state.path());

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
    std::this_thread::sleep_for(std::chrono::seconds(2));  // namespaces are freed by the kernel after the exit
    const long used_stopped = machine_used_kb();
    // Three readings of the same thing: the slope while they started; what the machine gave them from
    // before the start to after it; what it got back when they stopped. They differ by what other
    // programs of the machine did meanwhile.
    std::printf("  machine memory per sandbox (MemTotal - MemAvailable): %.2f MB by the slope while starting, %.2f MB "
                "before/after the start, %.2f MB given back at the stop\n",
                sampler.slope_kb() / 1024.0, per_sandbox_mb(used_after - used_before), per_sandbox_mb(used_after - used_stopped));
    std::printf("  of which its processes (PSS, page tables, kernel stacks): %.2f MB; the rest is kernel objects\n",
                processes_kb / 1024.0);
    setenv("TMPDIR", "/tmp", 1);
}

}  // namespace

int main(int argc, char **argv) {
    size_t jobs = client::default_concurrency();
    std::vector<size_t> sizes;
    bool with_image = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) jobs = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
        else if (std::strcmp(argv[i], "--image") == 0) with_image = true;
        else sizes.push_back(static_cast<size_t>(std::max(1, std::atoi(argv[i]))));
    }
    testing::TempDir image_dir("ahdensity-image"), store("ahdensity-store");
    std::string image;
    if (with_image) {
        testing::TempDir root("ahdensity-root");
        const std::string layout = image_dir / "busybox";
        std::string why = testing::make_busybox_rootfs(root.path());
        if (why.empty()) why = testing::tar_directory(root.path(), layout + ".tar");
        if (why.empty()) why = testing::write_oci_layout(layout, "v1", {{layout + ".tar", true}});
        if (!why.empty()) {
            std::printf("--image: no busybox image (%s)\n", why.c_str());
            return 0;
        }
        image = "oci:" + layout + ":v1";
        // Into the store once: the figures are of sandboxes on a warm image.
        runtimes_test::start_runtime("sandbox", [&](client::Config &c) {
            c.set("sandbox.base_container_image", image);
            c.set("sandbox.image_store", store.path());
        });
    }
    if (sizes.empty()) sizes = {100, 500, 1000};
    // A thousand sandboxes are a few thousand descriptors in flight for this client.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    const double bash_seq = spawn_rate(200, 1), bash_par = spawn_rate(400, jobs);
    for (size_t n : sizes) run_density(n, jobs, bash_seq, bash_par, image, store.path());
    return 0;
}
