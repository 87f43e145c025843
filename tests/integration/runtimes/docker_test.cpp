// The docker backend for real: a Docker engine (started here when none runs), a base image imported
// from a rootfs tar, the host bind-mounted in. The conformance set, then the container lifecycle.
#include <gtest/gtest.h>

#include <actionhost/client/http_transport.hpp>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using nlohmann::json;

namespace {

int container_status(const std::string &name, std::string *state = nullptr) {
    Endpoint e;
    e.unix_socket = true;
    e.host = "/var/run/docker.sock";
    HttpConnection c(e);
    HttpRequest r;
    r.path = "/v1.41/containers/" + name + "/json";
    HttpResponse resp = c.send(r);
    if (state && resp.status == 200) *state = json::parse(resp.body)["State"].value("Status", "");
    return resp.status;
}

}  // namespace

TEST(DockerRuntime, ConformanceSet) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    auto s = start_runtime("docker");
    std::string name = "openhands-runtime-" + s->runtime->session_id();
    EXPECT_EQ(container_status(name), 200);
    check_bash(*s);
    check_read_write(*s);
    check_edit(*s);
    check_upload_download(*s);
    s->runtime->close();
    EXPECT_EQ(container_status(name), 404) << "close removes the container";
}

TEST(DockerRuntime, KeepAliveAttachPauseResume) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    auto keep = [](Config &c) {
        c.set("sandbox.keep_runtime_alive", true);
        c.set("sandbox.runtime_startup_env_vars", json({{"AH_MARKER", "m42"}}));
        c.set("sandbox.volumes", "");
    };
    auto first = start_runtime("docker", keep);
    std::string sid = first->runtime->session_id();
    std::string name = "openhands-runtime-" + sid;
    EXPECT_EQ(run(*first->runtime, "echo $AH_MARKER").value("content", ""), "m42");
    EXPECT_EQ(run(*first->runtime, "echo kept > " + first->workspace_inside + "/k.txt").value("observation", ""), "run");
    // pause = stop the container, resume = start it again; the workspace survives.
    first->runtime->pause();
    std::string state;
    EXPECT_EQ(container_status(name, &state), 200);
    EXPECT_EQ(state, "exited");
    first->runtime->resume();
    EXPECT_EQ(run(*first->runtime, "cat k.txt").value("content", ""), "kept");
    first->runtime->close();  // kept alive
    EXPECT_EQ(container_status(name, &state), 200);
    EXPECT_EQ(state, "running");

    // A second client with the same session id attaches to the same container.
    RuntimeOptions o;
    o.install_dir = actionhost::testing::build_path("");
    o.session_id = sid;
    o.config.set("core.runtime", "docker");
    o.config.set("core.state_dir", first->state->path());
    o.config.set("sandbox.base_container_image", DockerForTests::image());
    auto second = Runtime::create(std::move(o));
    second->connect();
    EXPECT_EQ(second->url(), first->runtime->url());
    EXPECT_EQ(run(*second, "cat " + first->workspace_inside + "/k.txt").value("content", ""), "kept");
    second->close();  // not kept: removed
    EXPECT_EQ(container_status(name), 404);
}
