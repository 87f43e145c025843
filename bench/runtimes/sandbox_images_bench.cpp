// Images on the daemonless `sandbox` runtime, each figure against a floor or a peer measured in the same
// run (figures only: it never fails on time):
//   - start to first observation with network = "internet" vs "none";
//   - start to first observation from a warm image (busybox, an OCI layout already in the store) vs the
//     same start without an image, with a disk limit (root) vs without, vs `docker run --rm <busybox>
//     true` and vs the docker runtime's start on that image (the same job) when dockerd runs or starts;
//   - the first start of a ~100 MB image from a registry started here (pull, verify, unpack, start) vs
//     `docker pull` of the same reference;
//   - a snapshot of a sandbox that wrote 100 MB vs GNU tar of the same 100 MB into a file;
//   - a fork of 100 sandboxes from that snapshot (started concurrently, all running at the end): wall
//     time per sandbox, and one start's median.
// The density of one image (1 000 sandboxes, memory each) is ah_bench_density --image.
//   ah_bench_images [iterations=10]
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/fleet.hpp>
#include <actionhost/client/runtime.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "../../tests/integration/images/images_harness.hpp"
#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "start_teardown.hpp"
#include "support/oci_layout.hpp"
#include "support/random_file.hpp"
#include "support/run_process.hpp"
#include "support/stats.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

using namespace actionhost;
using namespace actionhost::bench;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// busybox as an OCI layout in `dir` (tag v1), with `extra` (a directory) as a second layer when given.
bool make_layout(const std::string &dir, const std::string &extra = "") {
    testing::TempDir root("ahbench-root");
    if (auto why = testing::make_busybox_rootfs(root.path()); !why.empty()) {
        std::printf("busybox root: %s\n", why.c_str());
        return false;
    }
    std::vector<testing::OciLayer> layers = {{dir + ".base.tar", true}};
    if (testing::tar_directory(root.path(), layers[0].tar) != "") return false;
    if (!extra.empty()) {
        layers.push_back({dir + ".extra.tar", true});
        if (testing::tar_directory(extra, layers[1].tar) != "") return false;
    }
    const std::string why = testing::write_oci_layout(dir, "v1", layers);
    for (const auto &l : layers) std::remove(l.tar.c_str());
    if (!why.empty()) std::printf("layout: %s\n", why.c_str());
    return why.empty();
}

std::function<void(client::Config &)> on_image(const std::string &image, const std::string &store, const std::string &state = "") {
    return [=](client::Config &c) {
        c.set("sandbox.base_container_image", image);
        c.set("sandbox.image_store", store);
        if (!state.empty()) c.set("core.state_dir", state);
    };
}

void bench_start(int n, const std::string &layout, const std::string &store, runtimes_test::DockerForTests &docker) {
    const std::string image = "oci:" + layout + ":v1";
    runtimes_test::start_runtime("sandbox", on_image(image, store));  // into the store: from here on, warm
    const Figures bare = bench_start_teardown("sandbox, no image (the machine's /usr)", "sandbox", n, {}, nullptr);
    const RatioFloor no_image{bare, "the same without an image"};
    // network = "internet" (pasta and the egress filter) against the default "none", no image either way.
    const RatioFloor no_network{bare, "network = none"};
    if (std::system("command -v pasta >/dev/null 2>&1") == 0)
        bench_start_teardown("sandbox, network = internet", "sandbox", n, [](client::Config &c) { c.set("sandbox.network", "internet"); },
                             &no_network);
    else
        std::printf("sandbox, network = internet: skipped (no pasta: Debian's passt package)\n");
    const Figures warm = bench_start_teardown("sandbox, busybox image (warm)", "sandbox", n, on_image(image, store), &no_image);
    // With a disk of its own (sandbox.disk_limit): a sparse copy of a kept ext4 template, a loop device, a mount.
    const RatioFloor without_disk{warm, "the same without a disk limit"};
    const auto with_disk = [&](client::Config &c) {
        on_image(image, store)(c);
        c.set("sandbox.disk_limit", "2g");
    };
    if (geteuid() == 0) bench_start_teardown("sandbox, busybox image (warm), disk_limit 2g", "sandbox", n, with_disk, &without_disk);
    if (!docker.available()) {
        std::printf("docker run --rm busybox true: skipped (%s)\n", docker.why_not().c_str());
        return;
    }
    const std::vector<std::string> docker_true = {"docker", "-H", "unix:///var/run/docker.sock", "run", "--rm",
                                                  runtimes_test::DockerForTests::image(), "true"};
    const Figures peer = measure(n, [&] { testing::run_process(docker_true, 120); }, 1);
    print_row(std::string("docker run --rm ") + runtimes_test::DockerForTests::image() + " true", peer);
    print_ratio("sandbox, busybox image (warm) start vs docker run --rm true", warm, peer);
    // The same job through Docker: the docker runtime on the same busybox image, its host ready and `echo
    // hi` answered (start to first observation, as the rows above).
    const Figures docker_job = bench_start_teardown(
        "docker runtime, busybox image", "docker", n,
        [](client::Config &c) { c.set("sandbox.base_container_image", runtimes_test::DockerForTests::image()); }, nullptr);
    print_ratio("sandbox, busybox image (warm) start vs the docker runtime's", warm, docker_job);
}

void bench_pull(int n, const std::string &work, runtimes_test::DockerForTests &docker) {
    testing::TempDir payload("ahbench-payload");
    ::mkdir((payload / "opt").c_str(), 0755);
    write_random_file(payload / "opt/data", 100u << 20);
    const std::string layout = work + "/big";
    if (!make_layout(layout, payload.path())) return;
    images_test::LocalRegistry registry;
    if (!registry.started()) {
        std::printf("pull: skipped (%s)\n", registry.why_not().c_str());
        return;
    }
    const std::string ref = registry.address() + "/bench/big:1";
    if (auto why = testing::skopeo_copy("oci:" + layout + ":v1", "docker://" + ref); !why.empty()) {
        std::printf("pull: skipped (push: %s)\n", why.c_str());
        return;
    }
    std::vector<double> ours;
    for (int i = 0; i < n; ++i) {
        testing::TempDir store("ahbench-store");
        const auto t0 = Clock::now();
        auto s = runtimes_test::start_runtime("sandbox", on_image(ref, store.path()));
        auto obs = runtimes_test::run(*s->runtime, "wc -c < /opt/data");
        ours.push_back(ms_since(t0));
        if (obs.value("content", "") != std::to_string(100u << 20)) std::printf("pull: unexpected %s\n", obs.dump().c_str());
    }
    const Figures f = figures(ours);
    print_row("sandbox: first start of a 100 MB image (pull, verify, unpack, start, first observation)", f);
    if (!docker.available()) {
        std::printf("docker pull: skipped (%s)\n", docker.why_not().c_str());
        return;
    }
    std::vector<double> peer;
    for (int i = 0; i < n; ++i) {
        testing::run_process({"docker", "-H", "unix:///var/run/docker.sock", "rmi", "-f", ref}, 120);
        const auto t0 = Clock::now();
        auto r = testing::run_process({"docker", "-H", "unix:///var/run/docker.sock", "pull", "-q", ref}, 600);
        peer.push_back(ms_since(t0));
        if (r.exit_code != 0) {
            std::printf("docker pull %s failed: %s\n", ref.c_str(), r.output.c_str());
            return;
        }
    }
    testing::run_process({"docker", "-H", "unix:///var/run/docker.sock", "rmi", "-f", ref}, 120);
    const Figures p = figures(peer);
    print_row("docker pull of the same image (pull and unpack only, no container)", p);
    print_ratio("sandbox first start vs docker pull", f, p);
}

// Returns the name of a snapshot holding 100 MB ("" when none could be made).
std::string bench_snapshot(int n, const std::string &layout, const std::string &store, const std::string &state) {
    testing::TempDir floor_dir("ahbench-floor");
    write_random_file(floor_dir / "data", 100u << 20);
    const Figures floor = measure(
        n, [&] { testing::run_process({"tar", "-cf", floor_dir / "out.tar", "-C", floor_dir.path(), "data"}, 120); }, 1);
    print_row("floor: GNU tar of 100 MB into a file", floor);
    std::vector<double> ours;
    std::string name;
    for (int i = 0; i < n; ++i) {
        auto s = runtimes_test::start_runtime("sandbox", on_image("oci:" + layout + ":v1", store, state));
        if (runtimes_test::exit_code(runtimes_test::run(*s->runtime, "mkdir -p /opt && head -c 104857600 /dev/urandom > /opt/data", 120)) != 0) {
            std::printf("snapshot: the sandbox could not write 100 MB\n");
            return "";
        }
        name = "bench-snapshot-" + std::to_string(i);
        const auto t0 = Clock::now();
        try {
            s->runtime->snapshot(name);
        } catch (const std::exception &e) {
            std::printf("snapshot: %s\n", e.what());
            return "";
        }
        ours.push_back(ms_since(t0));
    }
    const Figures f = figures(ours);
    print_row("sandbox: snapshot of a sandbox that wrote 100 MB (freeze, write the layer, thaw)", f);
    print_ratio("snapshot vs tar of the same bytes", f, floor);
    return name;
}

void bench_fork(const std::string &snapshot, const std::string &store, const std::string &state, size_t count) {
    const auto configure = on_image(snapshot, store, state);
    {
        const auto t0 = Clock::now();
        auto first = runtimes_test::start_runtime("sandbox", configure);
        std::printf("%-60s %8.1f ms\n", "fork: first sandbox of the snapshot (unpacks its 100 MB layer)", ms_since(t0));
    }
    client::RuntimeOptions options = runtimes_test::test_runtime_options("sandbox", "", state);
    options.config.set("core.workspace_base", "");
    configure(options.config);
    std::vector<std::unique_ptr<client::Runtime>> forks(count);
    std::vector<double> one(count, 0);
    std::mutex mu;
    std::string failure;
    const auto t0 = Clock::now();
    client::for_each_concurrently(count, client::default_concurrency(), [&](size_t i) {
        const auto t = Clock::now();
        try {
            auto rt = client::Runtime::create(options);
            rt->connect();
            one[i] = ms_since(t);
            forks[i] = std::move(rt);
        } catch (const std::exception &e) {
            std::lock_guard lock(mu);
            if (failure.empty()) failure = e.what();
        }
    });
    const double wall = ms_since(t0);
    size_t running = 0;
    for (const auto &f : forks) running += f != nullptr;
    std::printf("fork: %zu of %zu sandboxes from the snapshot in %.0f ms, %zu at a time: %.1f ms per sandbox%s%s\n", running, count, wall,
                client::default_concurrency(), wall / static_cast<double>(count), failure.empty() ? "" : "; first failure: ",
                failure.c_str());
    print_row("fork: one start (create, connect) among them", figures(one));
    client::for_each_concurrently(count, client::default_concurrency(), [&](size_t i) {
        if (forks[i]) forks[i]->close();
    });
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    if (geteuid() != 0) std::printf("(not root: snapshots need the cgroup freezer, they and forks are skipped)\n");
    testing::TempDir work("ahbench-images"), store("ahbench-store"), state("ahbench-state");
    const std::string layout = work / "busybox";
    if (!make_layout(layout)) return 0;
    runtimes_test::DockerForTests docker;  // a running engine, else dockerd started for the run
    bench_start(n, layout, store.path(), docker);
    bench_pull(std::max(1, n / 3), work.path(), docker);
    if (geteuid() != 0) return 0;
    const std::string snapshot = bench_snapshot(std::max(1, n / 3), layout, store.path(), state.path());
    if (!snapshot.empty()) bench_fork(snapshot, store.path(), state.path(), 100);
    return 0;
}
