// `ahctl run -- true` end to end (a fresh sandbox started, the command run with its output followed,
// the sandbox stopped) against its peers in the same run: `docker run --rm <busybox> true` (dockerd
// started for the run when none runs; skipped with the reason when it cannot start) and the floor,
// `bash -c true`. Prints medians and ratios; never fails on time.
//   ah_bench_ahctl [iterations=10]
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../tests/integration/runtimes/runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/stats.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::bench;

namespace {

// Runs argv to its end (stdout and stderr to /dev/null); its exit code.
int run_quietly(const std::vector<std::string> &argv, const std::vector<std::string> &env = {}) {
    pid_t p = fork();
    if (p == 0) {
        FILE *null = std::fopen("/dev/null", "w");
        if (null) {
            dup2(fileno(null), 1);
            dup2(fileno(null), 2);
        }
        for (const auto &kv : env) putenv(const_cast<char *>(kv.c_str()));
        std::vector<char *> cargv;
        for (const auto &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
        cargv.push_back(nullptr);
        execvp(cargv[0], cargv.data());
        _exit(127);
    }
    int status = 0;
    waitpid(p, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    actionhost::testing::TempDir dir("ahbench-ahctl");
    const std::string ahctl = actionhost::testing::build_path("bin/ahctl");
    const std::vector<std::string> env = {"HOME=" + dir.path()};
    const std::vector<std::string> run_true = {ahctl, "--state-dir", dir / "state", "-r", "sandbox", "-q", "run", "--", "true"};
    if (run_quietly(run_true, env) != 0) {
        std::printf("ahctl run -- true: failed; nothing to measure\n");
        return 0;
    }
    const Figures floor = measure(n * 5, [] { run_quietly({"bash", "-c", "true"}); }, 3);
    print_row("floor: bash -c true", floor);
    const Figures ours = measure(n, [&] { run_quietly(run_true, env); }, 1);
    print_row("ahctl -r sandbox run -- true (start, run, stop)", ours);
    print_ratio("ahctl run -- true vs bash -c true", ours, floor);

    runtimes_test::DockerForTests docker;  // a running engine, else dockerd started for the run
    if (!docker.available()) {
        std::printf("docker run --rm %s true: skipped (%s)\n", runtimes_test::DockerForTests::image(), docker.why_not().c_str());
        return 0;
    }
    const std::vector<std::string> docker_true = {"docker", "-H", "unix:///var/run/docker.sock", "run", "--rm",
                                                  runtimes_test::DockerForTests::image(), "true"};
    if (run_quietly(docker_true) != 0) {
        std::printf("docker run --rm %s true: failed; skipped\n", runtimes_test::DockerForTests::image());
        return 0;
    }
    const Figures peer = measure(n, [&] { run_quietly(docker_true); }, 1);
    print_row(std::string("docker run --rm ") + runtimes_test::DockerForTests::image() + " true", peer);
    print_ratio("ahctl run -- true vs docker run --rm true", ours, peer);
    return 0;
}
