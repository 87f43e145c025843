// The docker backend for real: a Docker engine (started here when none runs), a busybox base image
// imported from a rootfs tar, the host bundle bind-mounted in (bash from the bundle: busybox has none).
// The conformance set, then the container lifecycle.
#include <gtest/gtest.h>

#include <actionhost/client/http_transport.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/temp_dir.hpp"

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

// `ahctl --plugin-dir DIR` with docker: DIR, a directory of the client's machine, is bound into the
// container read-only at the same path and handed to the host's --plugin-dir, which loads the plugin.
TEST(DockerRuntime, PluginDirOfTheClientMachine) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const std::string fixture = actionhost::testing::build_path("tests/abi/fixture_modules/fx_good");
    if (!std::filesystem::exists(fixture)) GTEST_SKIP() << "the ABI fixtures are not part of this build (ACTIONHOST_MODULES)";
    actionhost::testing::TempDir plugins("ahrt-plugins");
    std::filesystem::copy(fixture, plugins / "fx_good", std::filesystem::copy_options::recursive);
    auto s = start_runtime("docker", {}, [&](RuntimeOptions &o) {
        o.plugin_dirs = {plugins.path()};
        o.plugins = {"fx_good"};
    });
    json obs = s->runtime->execute({{"action", "fixture_echo"}, {"args", {{"text", "from a plugin dir"}}}});
    EXPECT_EQ(obs.value("observation", ""), "fixture") << obs.dump();
    EXPECT_NE(obs.value("content", "").find("from a plugin dir"), std::string::npos) << obs.dump();
    json touch = run(*s->runtime, "touch " + (plugins / "fx_good/x") + " 2>&1; ls " + plugins.path());
    EXPECT_NE(touch.value("content", "").find("Read-only file system"), std::string::npos) << touch.dump();
    EXPECT_NE(touch.value("content", "").find("fx_good"), std::string::npos) << touch.dump();
    s->runtime->close();
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

// OpenHands publishes the app ports (and the VSCode port when the vscode plugin is asked for) besides
// the server's: a server started in the container on APP_PORT_1 answers on the host.
TEST(DockerRuntime, AppPortsArePublished) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    auto s = start_runtime("docker");
    std::string name = "openhands-runtime-" + s->runtime->session_id();
    const std::string app1 = run(*s->runtime, "echo $APP_PORT_1").value("content", "");
    const std::string app2 = run(*s->runtime, "echo $APP_PORT_2").value("content", "");
    const std::string vscode = run(*s->runtime, "echo $VSCODE_PORT").value("content", "");
    ASSERT_FALSE(app1.empty());
    Endpoint e;
    e.unix_socket = true;
    e.host = "/var/run/docker.sock";
    HttpConnection engine(e);
    HttpRequest r;
    r.path = "/v1.41/containers/" + name + "/json";
    json c = json::parse(engine.send(r).body);
    const json &bindings = c["HostConfig"]["PortBindings"];
    const std::string server = s->runtime->url().substr(s->runtime->url().rfind(':') + 1);
    for (const auto &p : {server, app1, app2}) {
        ASSERT_TRUE(bindings.contains(p + "/tcp")) << p << " not published: " << bindings.dump();
        EXPECT_EQ(bindings[p + "/tcp"][0].value("HostPort", ""), p);
    }
    EXPECT_FALSE(bindings.contains(vscode + "/tcp")) << "VSCode port published without the vscode plugin";

    ASSERT_EQ(exit_code(run(*s->runtime, "mkdir -p /tmp/www && echo app-up > /tmp/www/index.html && "
                                         "busybox httpd -p 0.0.0.0:" + app1 + " -h /tmp/www")),
              0);
    Endpoint app;
    app.host = "127.0.0.1";
    app.port = std::stoi(app1);
    std::string body;
    for (int i = 0; i < 100 && body.find("app-up") == std::string::npos; ++i) {
        try {
            HttpConnection conn(app);
            HttpRequest get;
            get.path = "/index.html";
            get.timeout_s = 5;
            body = conn.send(get).body;
        } catch (const std::exception &) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    }
    EXPECT_NE(body.find("app-up"), std::string::npos) << run(*s->runtime, "ps").dump();
    s->runtime->close();
}

namespace {

struct ImageModeRun {
    std::unique_ptr<Runtime> runtime;
    std::vector<std::string> details;
};

ImageModeRun start_image_mode(const std::string &install_dir, const std::string &workspace, const std::string &state) {
    ImageModeRun r;
    RuntimeOptions o;
    o.install_dir = install_dir;
    o.config.set("core.runtime", "docker");
    o.config.set("core.workspace_base", workspace);
    o.config.set("core.state_dir", state);
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    o.config.set("sandbox.base_container_image", DockerForTests::image());
    o.config.set("sandbox.docker_install_mode", "image");
    ImageModeRun *raw = &r;
    o.on_status = [raw](const std::string &st, const std::string &d) { raw->details.push_back(st + " " + d); };
    r.runtime = Runtime::create(std::move(o));
    r.runtime->connect();
    return r;
}

bool said(const ImageModeRun &r, const std::string &what) {
    for (const auto &d : r.details)
        if (d.find(what) != std::string::npos) return true;
    return false;
}

}  // namespace

// docker_install_mode = "image": the host goes into an image built through POST /build with a tar context
// made in C++, tagged with OpenHands' three tags (runtime_build.py); reused while the install tree is
// unchanged, rebuilt FROM the lock image when only the code changed.
TEST(DockerRuntime, ImageBuildModeThreeTags) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const std::string repo = "actionhost-test/runtime";
    setenv("OH_RUNTIME_RUNTIME_IMAGE_REPO", repo.c_str(), 1);
    for (const auto &t : repo_tags(repo)) engine_request("DELETE", "/images/" + repo + ":" + t + "?force=1", "", "application/json", 60);
    // An install tree of our own (this backend and a copy of the host bundle), so the test can change it.
    actionhost::testing::TempDir install("ahimg-install"), ws("ahimg-ws"), state("ahimg-state");
    namespace fs = std::filesystem;
    const fs::path build = actionhost::testing::build_path("");
    for (const char *m : {"lib/actionhost/runtimes/docker"}) {
        fs::create_directories(install / m);
        fs::copy(build / m, install / m, fs::copy_options::recursive);
    }
    fs::create_directories(install / "dist");
    for (const char *part : {"actionhost", "micromamba"})
        fs::copy(build / "dist" / part, install.path() + "/dist/" + part, fs::copy_options::recursive | fs::copy_options::copy_symlinks);

    ImageModeRun first = start_image_mode(install.path(), ws.path(), state.path());
    EXPECT_TRUE(said(first, "STATUS$BUILDING_RUNTIME")) << testing::PrintToString(first.details);
    EXPECT_TRUE(said(first, "from the base image")) << testing::PrintToString(first.details);
    std::vector<std::string> tags = repo_tags(repo);
    ASSERT_EQ(tags.size(), 3u) << testing::PrintToString(tags);
    std::string lock, source, versioned;
    for (const auto &t : tags) {
        if (t.find("actionhost-test-busybox_t_1") != std::string::npos) versioned = t;
        else if (std::count(t.begin(), t.end(), '_') == 3) source = t;
        else lock = t;
    }
    EXPECT_TRUE(std::regex_match(lock, std::regex("oh_v[0-9.]+_[0-9a-z]{1,16}"))) << lock;
    EXPECT_EQ(source.rfind(lock + "_", 0), 0u) << source;
    EXPECT_TRUE(std::regex_match(versioned, std::regex("oh_v[0-9.]+_actionhost-test-busybox_t_1"))) << versioned;
    // The container runs the source image, with the host inside it rather than bind-mounted.
    std::string name = "openhands-runtime-" + first.runtime->session_id();
    json c = json::parse(engine_request("GET", "/containers/" + name + "/json", "", "application/json", 60).body);
    EXPECT_EQ(c["Config"].value("Image", ""), repo + ":" + source);
    EXPECT_EQ(c["HostConfig"]["Binds"].dump().find(":/openhands/actionhost"), std::string::npos) << c["HostConfig"]["Binds"].dump();
    EXPECT_EQ(run(*first.runtime, "echo from-image").value("content", ""), "from-image");
    first.runtime->close();

    // Same install tree: the source image is reused, nothing is built.
    ImageModeRun again = start_image_mode(install.path(), ws.path(), state.path());
    EXPECT_TRUE(said(again, "reusing " + repo + ":" + source)) << testing::PrintToString(again.details);
    again.runtime->close();

    // Only the code changed: built FROM the lock image; a new source tag, the lock tag moved along.
    actionhost::testing::write_file(install / "dist/actionhost/lib/actionhost/plugins/bash/NOTICE.txt", "changed code\n");
    ImageModeRun changed = start_image_mode(install.path(), ws.path(), state.path());
    EXPECT_TRUE(said(changed, "from the lock image")) << testing::PrintToString(changed.details);
    std::vector<std::string> after = repo_tags(repo);
    EXPECT_EQ(after.size(), 4u) << testing::PrintToString(after);
    EXPECT_EQ(run(*changed.runtime, "cat /openhands/actionhost/lib/actionhost/plugins/bash/NOTICE.txt").value("content", ""),
              "changed code");
    changed.runtime->close();
    for (const auto &t : repo_tags(repo)) engine_request("DELETE", "/images/" + repo + ":" + t + "?force=1", "", "application/json", 60);
}
