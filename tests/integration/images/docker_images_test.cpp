// The host bundle in real images made here, no registry and nothing of the machine's /usr mounted: a
// busybox root (no bash, no python: the bundle's static bash serves `run`, and jupyter says what to
// install) and a Debian 12 minbase with python3-ipykernel (the image's own bash and python run). Then the
// image mode's extra deps and build args, and OpenHands' own start command against an image made with
// the 3-line Dockerfile of docs/runtimes.md.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "images_harness.hpp"
#include "runtime_harness.hpp"
#include "support/run_process.hpp"
#include "support/test_images.hpp"

using namespace runtimes_test;
using namespace images_test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json container_of(actionhost::client::Runtime &rt) {
    return json::parse(engine_request("GET", "/containers/openhands-runtime-" + rt.session_id() + "/json").body);
}

}  // namespace

TEST(ImagesDocker, BusyboxRunsBashReadWriteEditFromTheBundle) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    auto s = start_in_image(DockerForTests::image(), {});
    const json c = container_of(*s->runtime);
    const std::string binds = c["HostConfig"]["Binds"].dump();
    EXPECT_EQ(binds.find("\"/usr:"), std::string::npos) << "the machine's /usr is mounted: " << binds;
    EXPECT_NE(binds.find(":/openhands/actionhost:ro"), std::string::npos) << binds;
    check_bash(*s);
    check_read_write(*s);
    check_edit(*s);
    // The image has no bash and no python: the shell is the bundle's static bash, the rest is busybox's.
    EXPECT_EQ(run(*s->runtime, "readlink /proc/$$/exe").value("content", ""), "/openhands/actionhost/libexec/bash");
    EXPECT_NE(exit_code(run(*s->runtime, "test -e /usr/bin/python3")), 0);
    expect_no_loader_leak(*s->runtime);
    s->runtime->close();
}

TEST(ImagesDocker, BusyboxJupyterAnswersWhatToInstall) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    auto s = start_in_image(DockerForTests::image(), {"jupyter"});
    expect_jupyter_needs_ipykernel(s->runtime->wire());
    EXPECT_EQ(run(*s->runtime, "echo still-serving").value("content", ""), "still-serving");
    s->runtime->close();
}

TEST(ImagesDocker, DebianRunsAnIPythonCellWithItsOwnPython) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    std::string why;
    const std::string image = DockerForTests::debian_image(why);
    ASSERT_FALSE(image.empty()) << why;
    auto s = start_in_image(image, {"jupyter"});
    expect_debian_image_tools(*s->runtime);
    s->runtime->close();
}

// Image mode: the bundle COPY'd into an image of OpenHands' three tags, runtime_extra_deps as a RUN
// step in the image's own shell, runtime_extra_build_args as /build parameters; reused next time.
TEST(ImagesDocker, ImageModeRunsExtraDepsAndHonoursBuildArgs) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const std::string repo = "actionhost-test/extra-deps";
    setenv("OH_RUNTIME_RUNTIME_IMAGE_REPO", repo.c_str(), 1);
    auto tweak = [](actionhost::client::Config &c) {
        c.set("sandbox.docker_install_mode", "image");
        c.set("sandbox.runtime_extra_deps", "mkdir -p /opt/extra && echo deps-ran > /opt/extra/marker");
        c.set("sandbox.runtime_extra_build_args", json::array({"--label", "actionhost.test=extra-deps", "--no-cache"}));
    };
    auto s = start_in_image(DockerForTests::image(), {}, tweak);
    EXPECT_EQ(run(*s->runtime, "cat /opt/extra/marker").value("content", ""), "deps-ran");
    const json c = container_of(*s->runtime);
    const std::string image = c["Config"].value("Image", "");
    EXPECT_EQ(image.rfind(repo + ":", 0), 0u) << image;
    const json inspected = json::parse(engine_request("GET", "/images/" + image + "/json").body);
    EXPECT_EQ(inspected["Config"]["Labels"].value("actionhost.test", ""), "extra-deps") << inspected["Config"].dump();
    s->runtime->close();

    auto again = start_in_image(DockerForTests::image(), {}, tweak);
    bool reused = false;
    for (const auto &d : again->statuses) reused |= d.find("reusing " + image) != std::string::npos;
    EXPECT_TRUE(reused) << testing::PrintToString(again->statuses);
    again->runtime->close();

    // A flag the Engine API cannot express is refused by name, before anything is built.
    try {
        start_in_image(DockerForTests::image(), {}, [](actionhost::client::Config &c) {
            c.set("sandbox.docker_install_mode", "image");
            c.set("sandbox.runtime_extra_build_args", json::array({"--secret", "id=x"}));
        });
        ADD_FAILURE() << "an unsupported build flag was accepted";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("--secret has no Docker Engine API equivalent"), std::string::npos) << e.what();
    }
    for (const auto &t : repo_tags(repo)) engine_request("DELETE", "/images/" + repo + ":" + t + "?force=1");
    unsetenv("OH_RUNTIME_RUNTIME_IMAGE_REPO");
}

// docs/runtimes.md's Dockerfile (FROM any image, ADD the bundle tarball into /openhands/) makes an image
// that OpenHands' DockerRuntime can run unchanged: its exact start command, entrypoint [] and working
// directory /openhands/code/, as user openhands with uid 1000.
TEST(ImagesDocker, OpenHandsStartCommandServesFromTheImage) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    std::string why;
    const std::string base = DockerForTests::debian_image(why);
    ASSERT_FALSE(base.empty()) << why;
    const std::string image = "actionhost-test/openhands-dropin:1";
    ASSERT_EQ(build_image_from_bundle_tarball(base, image, why), "") << why;

    const int port = free_port();
    const std::string key = "dropin-key-1234";
    json cmd = json::array({"/openhands/micromamba/bin/micromamba", "run", "-n", "openhands", "poetry", "run", "python", "-u", "-m",
                            "openhands.runtime.action_execution_server", std::to_string(port), "--working-dir", "/workspace",
                            "--plugins", "agent_skills", "jupyter", "--username", "openhands", "--user-id", "1000"});
    const std::string id = run_container(image, cmd, {"SESSION_API_KEY=" + key, "port=" + std::to_string(port)}, port, "/openhands/code/");
    ASSERT_FALSE(id.empty());
    struct Remove {
        std::string id, image;
        ~Remove() {
            engine_request("DELETE", "/containers/" + id + "?force=true");
            engine_request("DELETE", "/images/" + image);  // its layers stay in the build cache for the next run
        }
    } remove{id, image};
    actionhost::client::WireClient wire("http://127.0.0.1:" + std::to_string(port), key);
    ASSERT_TRUE(wait_alive(wire, 120)) << container_logs(id);
    json obs = wire.execute({{"action", "run"}, {"args", {{"command", "whoami && id -u && pwd"}, {"is_input", false}, {"thought", ""}, {"blocking", false}}}});
    EXPECT_EQ(obs.value("content", ""), "openhands\n1000\n/workspace") << obs.dump();
    json cell = wire.execute({{"action", "run_ipython"}, {"args", {{"code", "print(6 * 7)"}, {"thought", ""}, {"include_extra", false}}}});
    EXPECT_EQ(cell.value("content", ""), "42") << cell.dump();
    // The skills module of the bundle, loaded by the image's python through ctypes (agent_skills is on).
    json skill = wire.execute({{"action", "run_ipython"},
                               {"args", {{"code", "open_file('/etc/passwd')"}, {"thought", ""}, {"include_extra", false}}}});
    EXPECT_NE(skill.value("content", "").find("[File: /etc/passwd ("), std::string::npos) << skill.dump();
}
