// Start to first observation (`echo hi`) and teardown per runtime backend, medians in one run, with the
// floor of spawning `bash -c 'echo hi'` on this machine measured in the same run.
//   ah_bench_runtimes [iterations=10] [local|pool|sandbox|cli|docker|image|images ...]   (default: all)
// (images: the host bundle's size, its image build, busybox and Debian images vs `docker run IMAGE true`)
// (docker: a running engine, else dockerd started for the run)
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "support/host_process.hpp"
#include "images_bench.hpp"
#include "start_teardown.hpp"
#include "support/stats.hpp"
#include "support/temp_dir.hpp"

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

void bench_backend(const std::string &backend, int n, const Figures &floor,
                   const std::function<void(actionhost::client::Config &)> &tweak = {}, const std::string &label = "") {
    const RatioFloor spawn{floor, "bash spawn"};
    bench_start_teardown(label.empty() ? backend : label, backend, n, tweak, &spawn);
}

// The local backend with a warm pool of one: every start after the first takes a pre-started host.
void bench_local_pool(int n, const Figures &floor) {
    actionhost::testing::TempDir ws("ahbench-pool-ws"), state("ahbench-pool-state");
    std::vector<double> start;
    for (int i = 0; i <= n; ++i) {
        actionhost::client::RuntimeOptions o;
        o.install_dir = actionhost::testing::build_path("");
        if (!o.install_dir.empty() && o.install_dir.back() == '/') o.install_dir.pop_back();
        o.config.set("core.runtime", "local");
        o.config.set("core.workspace_base", ws.path());
        o.config.set("core.state_dir", state.path());
        o.config.set("core.run_as_openhands", false);
        o.config.set("core.enable_browser", false);
        o.config.set("sandbox.warm_pool_size", 1);
        o.env["HOME"] = state.path();
        auto t0 = Clock::now();
        auto rt = actionhost::client::Runtime::create(std::move(o));
        rt->connect();
        runtimes_test::run(*rt, "echo hi");
        if (i > 0) start.push_back(ms_since(t0));  // the first start fills the pool
        rt->close();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the pool refills, as between sessions
    }
    Figures fs = figures(start);
    print_row("local (warm pool): start to first observation", fs);
    print_ratio("local (warm pool) start vs bash spawn", fs, floor);
}

}  // namespace

int main(int argc, char **argv) {
    int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    std::vector<std::string> only(argv + std::min(argc, 2), argv + argc);
    auto wanted = [&](const std::string &what) { return only.empty() || std::find(only.begin(), only.end(), what) != only.end(); };
    Figures floor = measure(n * 5, spawn_echo, 3);
    print_row("floor: spawn bash -c 'echo hi'", floor);
    if (wanted("local")) bench_backend("local", n, floor);
    if (wanted("pool")) bench_local_pool(n, floor);
    if (wanted("sandbox")) bench_backend("sandbox", n, floor);
    if (wanted("cli") && std::filesystem::exists(actionhost::testing::build_path("lib/actionhost/runtimes/cli/manifest.json")))
        bench_backend("cli", n, floor);
    if (wanted("images")) bench_images(std::max(3, n / 2));
    if (!wanted("docker") && !wanted("image")) return 0;
    // Uses a running engine or starts dockerd for the run (stopped after); imports the base image.
    runtimes_test::DockerForTests docker;
    if (docker.available()) {
        if (wanted("docker")) bench_backend("docker", std::max(3, n / 2), floor);
        if (!wanted("image")) return 0;
        // The image mode: the first start builds the image (timed alone), the others reuse it.
        setenv("OH_RUNTIME_RUNTIME_IMAGE_REPO", "actionhost-bench/runtime", 1);
        auto image = [](actionhost::client::Config &c) {
            c.set("sandbox.docker_install_mode", "image");
            c.set("sandbox.force_rebuild_runtime", false);
        };
        auto t0 = Clock::now();
        runtimes_test::start_runtime("docker", image)->runtime->close();
        std::printf("docker (image): first start, building the image: %.1f ms\n", ms_since(t0));
        bench_backend("docker", std::max(3, n / 2), floor, image, "docker (built image)");
    } else {
        std::printf("docker: skipped (%s)\n", docker.why_not().c_str());
    }
    return 0;
}
