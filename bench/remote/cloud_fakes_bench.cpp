// Start to first observation (`echo hi`) and teardown through the remote and kubernetes backends against
// RemoteApiFake / KubernetesApiFake (real hosts behind them), medians in one run, with the local backend
// (the host as a plain child process) measured in the same run as the floor. What the provider protocol
// itself costs on top of starting a host: API calls, readiness polling, the sandbox proxy.
//   ah_bench_cloud_fakes [iterations=5]
#include <cstdio>
#include <string>

#include "runtime_harness.hpp"
#include "start_teardown.hpp"
#include "support/cloud_fakes/kubernetes_api_fake.hpp"
#include "support/cloud_fakes/remote_api_fake.hpp"
#include "support/host_process.hpp"
#include "support/stats.hpp"

using namespace actionhost::bench;
using actionhost::client::Config;

namespace {

std::string install_dir() {
    std::string d = actionhost::testing::build_path("");
    if (!d.empty() && d.back() == '/') d.pop_back();
    return d;
}

}  // namespace

int main(int argc, char **argv) {
    int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const RatioFloor local{bench_start_teardown("local (floor)", "local", n, {}, nullptr), "local"};

    actionhost::testing::RemoteApiFake remote;
    remote.add_image("bench/actionhost:1", install_dir());
    bench_start_teardown("remote (RemoteApiFake)", "remote", n, [&](Config &c) {
        c.set("sandbox.remote_runtime_api_url", remote.url());
        c.set("sandbox.api_key", remote.api_key());
        c.set("sandbox.runtime_container_image", "bench/actionhost:1");
        c.set("core.workspace_mount_path_in_sandbox", c.get_string("core.workspace_base"));
    }, &local);

    actionhost::testing::KubernetesApiFake kube;
    kube.add_image("bench/actionhost:1", install_dir());
    actionhost::testing::TempDir dir("ahbench-k8s");
    actionhost::testing::write_file(dir / "kubeconfig",
                                    "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n    server: " + kube.url() +
                                        "\ncontexts:\n- name: c\n  context:\n    cluster: k\n    user: u\nusers:\n- name: u\n  user:\n    token: " +
                                        kube.token() + "\n");
    bench_start_teardown("kubernetes (KubernetesApiFake)", "kubernetes", n, [&](Config &c) {
        c.set("kubernetes.kubeconfig", dir / "kubeconfig");
        c.set("kubernetes.connect_to", "pod_ip");
        c.set("sandbox.runtime_container_image", "bench/actionhost:1");
        c.set("core.workspace_mount_path_in_sandbox", c.get_string("core.workspace_base"));
    }, &local);
    return 0;
}
