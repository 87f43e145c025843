// Images the engine lacks are pulled, as `docker run` does: from a real registry (Debian's
// docker-registry) started here on 127.0.0.1, with progress on the status line, credentials from a
// docker config.json (htpasswd auth); a pull that cannot succeed says why and what to do.
#include <crypt.h>
#include <gtest/gtest.h>

#include <Poco/Base64Encoder.h>

#include <sstream>

#include "images_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"

using namespace runtimes_test;
using namespace images_test;
using nlohmann::json;

namespace {

std::string base64(const std::string &text, bool url) {
    std::ostringstream out;
    Poco::Base64Encoder enc(out, url ? Poco::BASE64_URL_ENCODING : 0);
    enc.rdbuf()->setLineLength(0);
    enc << text;
    enc.close();
    return out.str();
}

// Builds `name` from the busybox test image plus a layer of its own (so a pull has something to
// download: layers the engine has are not fetched again), pushes it to its registry and removes it.
void push_busybox(const std::string &name, const std::string &user = "", const std::string &password = "") {
    const std::string repo = name.substr(0, name.rfind(':')), tag = name.substr(name.rfind(':') + 1);
    actionhost::testing::TempDir ctx("ahpull-ctx");
    actionhost::testing::write_file(ctx / "Dockerfile", "FROM " + std::string(DockerForTests::image()) +
                                                            "\nRUN head -c 300000 /dev/urandom > /layer-of-its-own\n");
    auto tar = actionhost::testing::run_process({"tar", "-C", ctx.path(), "-cf", ctx / "ctx.tar", "Dockerfile"}, 60);
    ASSERT_EQ(tar.exit_code, 0) << tar.output;
    auto built = engine_request("POST", "/build?rm=1&t=" + repo + ":" + tag, actionhost::testing::read_file(ctx / "ctx.tar"),
                                "application/x-tar", 300);
    ASSERT_EQ(built.status, 200) << built.body;
    ASSERT_EQ(built.body.find("\"error\""), std::string::npos) << built.body;
    json auth = user.empty() ? json::object() : json{{"username", user}, {"password", password}, {"serveraddress", repo.substr(0, repo.find('/'))}};
    auto pushed = engine_request("POST", "/images/" + repo + "/push?tag=" + tag, "", "application/json", 300,
                                 {{"X-Registry-Auth", base64(auth.dump(), true)}});
    ASSERT_EQ(pushed.status, 200) << pushed.body;
    ASSERT_EQ(pushed.body.find("\"error\""), std::string::npos) << pushed.body;
    ASSERT_EQ(engine_request("DELETE", "/images/" + name).status, 200);
}

bool said(const std::vector<std::string> &statuses, const std::string &what) {
    for (const auto &s : statuses)
        if (s.find(what) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(ImagesPull, AMissingImageIsPulledWithProgressThenRuns) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    LocalRegistry registry;
    ASSERT_TRUE(registry.started()) << registry.why_not();
    const std::string name = registry.address() + "/actionhost-test/pulled:1";
    push_busybox(name);
    ASSERT_EQ(engine_request("GET", "/images/" + name + "/json").status, 404);
    auto s = start_in_image(name, {});
    // Two layers: busybox's (already there) and the image's own (downloaded).
    EXPECT_TRUE(said(s->statuses, "pulling " + name + ": 2 of 2 layers")) << testing::PrintToString(s->statuses);
    EXPECT_EQ(engine_request("GET", "/images/" + name + "/json").status, 200);
    EXPECT_EQ(run(*s->runtime, "echo pulled-and-running").value("content", ""), "pulled-and-running");
    s->runtime->close();
    engine_request("DELETE", "/images/" + name + "?force=1");
}

TEST(ImagesPull, CredentialsComeFromTheDockerConfig) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    // htpasswd wants bcrypt: libcrypt makes it, as htpasswd -B would.
    char salt[64];
    ASSERT_NE(crypt_gensalt_rn("$2b$", 5, nullptr, 0, salt, sizeof salt), nullptr);
    crypt_data data{};
    const char *hash = crypt_r("s3cret-pw", salt, &data);
    ASSERT_NE(hash, nullptr);
    LocalRegistry registry(std::string("ahuser:") + hash + "\n");
    ASSERT_TRUE(registry.started()) << registry.why_not();
    const std::string name = registry.address() + "/actionhost-test/private:1";
    push_busybox(name, "ahuser", "s3cret-pw");

    actionhost::testing::TempDir config("ahdockercfg");
    setenv("DOCKER_CONFIG", config.path().c_str(), 1);
    // Without credentials the registry refuses, and the error says so and what to do.
    try {
        start_in_image(name, {});
        ADD_FAILURE() << "pulled without credentials";
    } catch (const std::exception &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("pulling " + name + " failed:"), std::string::npos) << what;
        EXPECT_NE(what.find("ahctl -r sandbox"), std::string::npos) << what;
    }
    actionhost::testing::write_file(config / "config.json",
                                    json{{"auths", {{registry.address(), {{"auth", base64("ahuser:s3cret-pw", false)}}}}}}.dump());
    auto s = start_in_image(name, {});
    EXPECT_EQ(run(*s->runtime, "echo private-image").value("content", ""), "private-image");
    s->runtime->close();
    unsetenv("DOCKER_CONFIG");
    engine_request("DELETE", "/images/" + name + "?force=1");
}

TEST(ImagesPull, NoImageAndNoRegistrySaysWhatToDo) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const std::string name = "127.0.0.1:" + std::to_string(free_port()) + "/actionhost-test/nowhere:1";
    auto r = actionhost::testing::run_process({actionhost::testing::build_path("bin/ahctl"), "-r", "docker", "run", "--", "echo hi"}, 120,
                                              {"SANDBOX_BASE_CONTAINER_IMAGE=" + name});
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Docker image " + name + " is not available: pulling " + name + " failed:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("connection refused"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ahctl -r sandbox"), std::string::npos) << r.output;
}

// The README's main job on a machine with Docker: `ahctl run` on the default runtime (docker) and the
// default image, which the test provides as a tag of its busybox image when the engine lacks it.
TEST(ImagesAhctl, RunWorksWithTheDefaultImage) {
    DockerForTests docker;
    if (!docker.available()) GTEST_SKIP() << docker.why_not();
    const std::string def = "nikolaik/python-nodejs:python3.12-nodejs22";
    const bool tagged_here = engine_request("GET", "/images/" + def + "/json").status == 404;
    if (tagged_here) {
        ASSERT_EQ(engine_request("POST", "/images/" + std::string(DockerForTests::image()) + "/tag?repo=nikolaik/python-nodejs&tag=python3.12-nodejs22").status, 201);
    }
    actionhost::testing::TempDir state("ahctl-state");
    // As openhands (OpenHands' default): busybox has no useradd, so the host creates the user with adduser.
    auto r = actionhost::testing::run_process({actionhost::testing::build_path("bin/ahctl"), "run", "--", "echo hi from $(whoami)"}, 180,
                                              {"XDG_STATE_HOME=" + state.path()});
    if (tagged_here) engine_request("DELETE", "/images/" + def);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("hi from openhands"), std::string::npos) << r.output;
}
