#include "images_bench.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "start_teardown.hpp"
#include "support/run_process.hpp"
#include "support/stats.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

namespace actionhost::bench {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// `docker run --rm <image> true`, through the Engine API as our backend talks to it.
double docker_run_true(const std::string &image) {
    auto t0 = Clock::now();
    json body = {{"Image", image}, {"Cmd", json::array({"true"})}};
    auto created = runtimes_test::engine_request("POST", "/containers/create", body.dump());
    const std::string id = json::parse(created.body).value("Id", "");
    runtimes_test::engine_request("POST", "/containers/" + id + "/start");
    runtimes_test::engine_request("POST", "/containers/" + id + "/wait");
    const double ms = ms_since(t0);
    runtimes_test::engine_request("DELETE", "/containers/" + id + "?force=true");
    return ms;
}

void bench_image(const std::string &label, const std::string &image, int n) {
    std::vector<double> floor;
    docker_run_true(image);  // warm
    for (int i = 0; i < n; ++i) floor.push_back(docker_run_true(image));
    const Figures f = figures(floor);
    print_row("docker run " + label + " true", f);
    const RatioFloor ratio{f, "docker run true"};
    bench_start_teardown("docker (" + label + ")", "docker", n,
                         [image](client::Config &c) { c.set("sandbox.base_container_image", image); }, &ratio);
}

}  // namespace

void bench_images(int n) {
    const std::string dist = testing::bundle_dir();
    if (dist.empty()) {
        std::printf("images: skipped (no bundle tree in build/dist)\n");
        return;
    }
    testing::TempDir tmp("ahbench-bundle");
    auto t0 = Clock::now();
    auto packed = testing::run_process({"sh", "-c", "tar -C \"$1\" --sort=name --owner=0 --group=0 -cf - actionhost micromamba | gzip -9n > \"$2\"",
                                        "sh", dist, tmp / "bundle.tar.gz"}, 300);
    struct stat st{};
    if (packed.exit_code == 0 && ::stat((tmp / "bundle.tar.gz").c_str(), &st) == 0)
        std::printf("bundle: %.1f MB compressed (goal <= 40 MB: %.0f%% of it), packed in %.0f ms\n", st.st_size / 1e6,
                    100.0 * st.st_size / 40e6, ms_since(t0));

    runtimes_test::DockerForTests docker;
    if (!docker.available()) {
        std::printf("images: docker skipped (%s)\n", docker.why_not().c_str());
        return;
    }
    bench_image("busybox", runtimes_test::DockerForTests::image(), n);
    std::string why;
    const std::string debian = runtimes_test::DockerForTests::debian_image(why);
    if (debian.empty()) std::printf("images: Debian skipped (%s)\n", why.c_str());
    else bench_image("debian", debian, n);

    // Image mode on busybox: the first start builds (forced), the next reuses the source tag.
    setenv("OH_RUNTIME_RUNTIME_IMAGE_REPO", "actionhost-bench/runtime", 1);
    for (bool force : {true, false}) {
        auto t = Clock::now();
        runtimes_test::start_runtime("docker", [force](client::Config &c) {
            c.set("sandbox.docker_install_mode", "image");
            c.set("sandbox.force_rebuild_runtime", force);
        })->runtime->close();
        std::printf("docker (image mode, busybox): start to first observation, %s: %.1f ms\n",
                    force ? "building the image" : "reusing the image", ms_since(t));
    }
}

}  // namespace actionhost::bench
