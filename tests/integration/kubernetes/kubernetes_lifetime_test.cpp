// sandbox.lifetime on the kubernetes backend against KubernetesApiFake, whose kubelet keeps a pod's
// spec.activeDeadlineSeconds as Kubernetes does (the pod killed and Failed, reason DeadlineExceeded,
// that long after it started): the pod carries the field, a kept pod ends by itself, the session's
// next client starts a new pod on the kept workspace, `ahctl ps` shows the time left, extending is
// refused (Kubernetes only shortens a running pod's deadline), and the idle keys — Kubernetes has no
// idle timer — and careless values are refused before any call. Lifetimes of 4 s; every wait bounded.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <actionhost/client/errors.hpp>
#include <chrono>
#include <regex>
#include <thread>

#include "runtime_harness.hpp"
#include "support/cloud_fakes/kubernetes_api_fake.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using actionhost::testing::KubernetesApiFake;
using actionhost::testing::TempDir;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const char *kImage = "registry.fake.test/actionhost:test";

class KubernetesLifetime : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string install = actionhost::testing::build_path("");
        if (!install.empty() && install.back() == '/') install.pop_back();
        fake.add_image(kImage, install);
        actionhost::testing::write_file(kubeconfig, "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n"
                                                    "    server: " + fake.url() + "\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n"
                                                    "    user: tester\n    namespace: sandboxes\nusers:\n- name: tester\n  user:\n    token: " +
                                                        fake.token() + "\n");
        setenv("KUBECONFIG", kubeconfig.c_str(), 1);  // ahctl finds the cluster as the backend does
    }
    void TearDown() override { unsetenv("KUBECONFIG"); }

    std::function<void(Config &)> keys(const std::function<void(Config &)> &more) {
        return [more](Config &c) {
            c.set("kubernetes.connect_to", "pod_ip");  // the fake has no cluster DNS
            c.set("sandbox.runtime_container_image", kImage);
            c.set("core.workspace_mount_path_in_sandbox", c.get_string("core.workspace_base"));
            c.set("kubernetes.keep_pvc", false);
            if (more) more(c);
        };
    }
    // A client of the session of `s` as a later process makes it: same workspace and state, not connected.
    std::unique_ptr<Runtime> later_client(StartedRuntime &s, bool keep) {
        auto options = test_runtime_options("kubernetes", s.workspace->path(), s.state->path());
        options.session_id = s.runtime->session_id();
        keys([keep](Config &c) { c.set("sandbox.keep_runtime_alive", keep); })(options.config);
        return Runtime::create(options);
    }
    // The pod's status.reason once it is `want` (bounded).
    std::string wait_reason(const std::string &pod, const std::string &want, double seconds) {
        const auto until = Clock::now() + std::chrono::duration<double>(seconds);
        for (;;) {
            const json o = fake.object("pods", "sandboxes", pod);
            std::string seen = o.is_null() ? "<none>" : o["status"].value("reason", "");
            if (seen == want || Clock::now() >= until) return seen;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    void expect_nothing_left() {
        std::vector<std::string> left;
        for (int i = 0; i < 200; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(50)))
            if ((left = fake.leftovers()).empty()) break;
        EXPECT_TRUE(left.empty()) << ::testing::PrintToString(left);
    }

    KubernetesApiFake fake;
    TempDir dir{"ahk8s-life"};
    std::string kubeconfig = dir / "kubeconfig";
};

}  // namespace

TEST_F(KubernetesLifetime, APodEndsByItselfAndTheNextClientStartsANewOne) {
    auto s = start_runtime("kubernetes", keys([](Config &c) {
                               c.set("sandbox.lifetime", 4);
                               c.set("sandbox.keep_runtime_alive", true);
                           }));
    const std::string pod = "openhands-runtime-" + s->runtime->session_id();
    EXPECT_EQ(fake.created_body("pods", pod)["spec"].value("activeDeadlineSeconds", 0), 4);
    const json state = s->runtime->lifetime();
    EXPECT_EQ(state.value("lifetime_s", 0), 4) << state.dump();
    EXPECT_LE(state.value("time_left_s", 99.0), 4.0) << state.dump();
    EXPECT_TRUE(state["idle_timeout_s"].is_null());
    EXPECT_EQ(run(*s->runtime, "echo kept > k.txt && echo ok").value("content", ""), "ok");
    s->runtime->close();  // kept: from here only the kubelet acts
    EXPECT_EQ(wait_reason(pod, "DeadlineExceeded", 15), "DeadlineExceeded");
    EXPECT_EQ(fake.object("pods", "sandboxes", pod)["status"].value("phase", ""), "Failed");
    try {
        later_client(*s, true)->lifetime();
        ADD_FAILURE() << "a lifetime for a pod that ended";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("DeadlineExceeded"), std::string::npos) << e.what();
    }
    // The session goes on in a new pod, on the workspace its volume kept.
    auto next = later_client(*s, false);
    next->connect();
    EXPECT_EQ(run(*next, "cat k.txt").value("content", ""), "kept");
    next->close();
    expect_nothing_left();
}

TEST_F(KubernetesLifetime, IdleKeysAndCarelessValuesAreRefusedBeforeAnyCall) {
    auto refused = [&](const std::function<void(Config &)> &more, const std::string &words) {
        try {
            start_runtime("kubernetes", keys(more));
            ADD_FAILURE() << "started";
        } catch (const std::exception &e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    refused([](Config &c) { c.set("sandbox.lifetime", -5); }, "sandbox.lifetime must be a whole number");
    refused([](Config &c) { c.set("sandbox.lifetime", 999'999'999'999LL); }, "at most");
    refused([](Config &c) { c.set("sandbox.idle_timeout", 60); }, "does not honour sandbox.idle_timeout");
    EXPECT_TRUE(fake.calls().empty()) << ::testing::PrintToString(fake.calls());
}

TEST_F(KubernetesLifetime, ExtendIsRefusedAndAhctlPsShowsTheTimeLeft) {
    auto s = start_runtime("kubernetes", keys([](Config &c) {
                               c.set("sandbox.lifetime", 600);
                               c.set("sandbox.keep_runtime_alive", true);
                           }));
    const std::string sid = s->runtime->session_id();
    try {
        s->runtime->extend(60);
        ADD_FAILURE() << "extended";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Kubernetes cannot extend"), std::string::npos) << e.what();
    }
    s->runtime->close();
    auto ahctl = [&](const std::string &args) {
        using actionhost::testing::sh_word;
        return actionhost::testing::run_process(
            {"/bin/sh", "-c", sh_word(actionhost::testing::build_path("bin/ahctl")) + " --state-dir " + sh_word(s->state->path()) + " " + args + " 2>&1"}, 60);
    };
    auto ps = ahctl("ps");
    EXPECT_EQ(ps.exit_code, 0) << ps.output;
    EXPECT_TRUE(std::regex_search(ps.output, std::regex(" (9m5[0-9]s|10m0s) "))) << ps.output;
    auto extend = ahctl("extend " + sid + " 60");
    EXPECT_NE(extend.exit_code, 0) << extend.output;
    EXPECT_NE(extend.output.find("Kubernetes cannot extend"), std::string::npos) << extend.output;
    later_client(*s, true)->stop_kept_alive();
    expect_nothing_left();
}
