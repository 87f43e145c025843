// Images on the daemonless `sandbox` runtime: an image's layers unpacked once into the client's image
// store and stacked under the sandbox's own writable layer (overlayfs in its user namespace), the host
// going in as the bundle. Images made here: a busybox-static root and the mmdebstrap Debian root, as OCI
// layouts (oci:DIR:TAG), as `docker save` archives (skopeo), and pushed to Debian's docker-registry
// started on 127.0.0.1 (anonymous and htpasswd). No dockerd anywhere.
#include <crypt.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/common/base64.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/images.hpp>

#include "images_harness.hpp"
#include "support/host_process.hpp"
#include "support/oci_layout.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

using namespace runtimes_test;
using namespace images_test;
namespace at = actionhost::testing;
using actionhost::client::Config;
using nlohmann::json;
using actionhost::common::base64_encode;
namespace fs = std::filesystem;

namespace {

std::string content(const json &obs) { return obs.value("content", ""); }

// A busybox image as an OCI layout in `dir`, tag "v1"; "" or why not.
std::string busybox_layout(const std::string &dir) {
    at::TempDir root("ahimg-root");
    if (auto why = at::make_busybox_rootfs(root.path()); !why.empty()) return why;
    if (auto why = at::tar_directory(root.path(), dir + ".layer.tar"); !why.empty()) return why;
    auto why = at::write_oci_layout(dir, "v1", {{dir + ".layer.tar", true}});
    fs::remove(dir + ".layer.tar");
    return why;
}

// Every file below `dir` with its size and mode, to compare a layer before and after sandboxes wrote.
std::string tree_listing(const std::string &dir) {
    std::set<std::string> lines;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
        struct stat st{};
        ::lstat(it->path().c_str(), &st);
        lines.insert(it->path().lexically_relative(dir).string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mode));
    }
    std::string out;
    for (const auto &l : lines) out += l + "\n";
    return out;
}

std::unique_ptr<StartedRuntime> start_image(const std::string &image, bool as_openhands = false,
                                            const std::function<void(Config &)> &more = {}) {
    return start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.base_container_image", image);
        c.set("core.run_as_openhands", as_openhands);
        if (more) more(c);
    });
}

std::string image_store_of(const StartedRuntime &s) { return s.state->path() + "/images"; }

}  // namespace

// The image's root, not the machine's: busybox's /bin, no python3 of the machine, the host from the bundle.
// Root inside writes /usr/local, /etc and /opt; the image's layer does not change; another sandbox of the
// same image sees nothing of it.
TEST(SandboxImages, AnOciLayoutIsTheSandboxsWritableRoot) {
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    auto a = start_image("oci:" + (dir / "layout") + ":v1");
    // busybox's applets, not the machine's tools.
    EXPECT_NE(content(run(*a->runtime, "ls -l /bin/sh")).find("busybox"), std::string::npos);
    EXPECT_NE(exit_code(run(*a->runtime, "test -e /usr/bin/python3")), 0) << "the machine's /usr shows";
    EXPECT_EQ(exit_code(run(*a->runtime, "mkdir -p /usr/local/bin /opt/tool && echo hi > /opt/tool/x && "
                                         "echo 'echo from-local' > /usr/local/bin/mine && chmod +x /usr/local/bin/mine && "
                                         "echo 'extra:x:1234:1234::/:/bin/sh' >> /etc/passwd")),
              0);
    EXPECT_EQ(content(run(*a->runtime, "mine")), "from-local");
    // The store's layer as it was; a second sandbox of the image sees none of it.
    std::string layer;
    for (const auto &e : fs::recursive_directory_iterator(image_store_of(*a) + "/layers", fs::directory_options::skip_permission_denied))
        if (e.is_directory() && e.path().parent_path().parent_path().filename() == "layers" && e.path().filename().string().size() == 64)
            layer = e.path();
    ASSERT_FALSE(layer.empty());
    const std::string before = tree_listing(layer);
    EXPECT_EQ(before.find("usr/local/bin/mine"), std::string::npos);
    auto b = start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.base_container_image", "oci:" + (dir / "layout") + ":v1");
        c.set("core.state_dir", a->state->path());
        c.set("core.run_as_openhands", false);
    });
    EXPECT_NE(exit_code(run(*b->runtime, "test -e /usr/local/bin/mine || test -e /opt/tool/x")), 0);
    EXPECT_EQ(content(run(*b->runtime, "grep -c extra /etc/passwd || true")), "0");
    EXPECT_EQ(tree_listing(layer), before);
    // The host is the bundle's, at its prefix, read-only.
    EXPECT_NE(exit_code(run(*a->runtime, "touch /openhands/actionhost/x")), 0);
}

// A registry reference, pulled without dockerd from Debian's docker-registry on the loopback (plain http
// there only): anonymous, then behind htpasswd with the credentials in a docker config.json.
TEST(SandboxImages, ARegistryImageIsPulledWithoutADaemon) {
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    LocalRegistry open;
    if (!open.started()) GTEST_SKIP() << open.why_not();
    const std::string ref = open.address() + "/tests/busybox:1";
    ASSERT_EQ(at::skopeo_copy("oci:" + (dir / "layout") + ":v1", "docker://" + ref), "");
    auto s = start_image(ref);
    EXPECT_EQ(content(run(*s->runtime, "echo pulled")), "pulled");
    bool pulled = false;
    for (const auto &st : s->statuses) pulled = pulled || st == "STATUS$BUILDING_RUNTIME";
    EXPECT_TRUE(pulled);

    // htpasswd: bcrypt from libcrypt, as htpasswd -B makes it.
    char salt[64];
    ASSERT_NE(crypt_gensalt_rn("$2b$", 5, nullptr, 0, salt, sizeof salt), nullptr);
    crypt_data data{};
    const std::string hash = crypt_r("s3cret-pw", salt, &data);
    at::TempDir auth("ahimg-auth");
    LocalRegistry locked("tester:" + hash + "\n");
    if (!locked.started()) GTEST_SKIP() << locked.why_not();
    const std::string private_ref = locked.address() + "/tests/private:1";
    ASSERT_EQ(at::skopeo_copy("oci:" + (dir / "layout") + ":v1", "docker://" + private_ref, "tester:s3cret-pw"), "");
    // Without credentials: a clear refusal naming docker login.
    try {
        auto refused = start_image(private_ref);
        ADD_FAILURE() << "pulled without credentials";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("docker login"), std::string::npos) << e.what();
    }
    // With them in $DOCKER_CONFIG/config.json.
    std::ofstream(auth / "config.json") << json{{"auths", {{locked.address(), {{"auth", base64_encode("tester:s3cret-pw")}}}}}}.dump();
    ::setenv("DOCKER_CONFIG", auth.path().c_str(), 1);
    auto s2 = start_image(private_ref);
    ::unsetenv("DOCKER_CONFIG");
    EXPECT_EQ(content(run(*s2->runtime, "echo private")), "private");
}

// `docker save` archives (made with skopeo from the layout) import too.
TEST(SandboxImages, ADockerArchiveImports) {
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    ASSERT_EQ(at::skopeo_copy("oci:" + (dir / "layout") + ":v1", "docker-archive:" + (dir / "bb.tar") + ":tests/bb:1"), "");
    auto s = start_image("docker-archive:" + (dir / "bb.tar"));
    EXPECT_EQ(content(run(*s->runtime, "busybox echo archived")), "archived");
}

// The Debian root: OpenHands' user set-up in the image (openhands created by the image's useradd), the
// image's own python3, and root installing a package with dpkg into its own layer.
TEST(SandboxImages, DebianImageInstallsPackagesAndSetsUpItsUser) {
    std::string why;
    const std::string tar = at::debian_rootfs_tar(why);
    if (tar.empty()) GTEST_SKIP() << why;
    at::TempDir dir("ahimg");
    ASSERT_EQ(at::write_oci_layout(dir / "layout", "bookworm", {{tar, false}}), "");
    const std::string image = "oci:" + (dir / "layout") + ":bookworm";
    {
        auto root = start_image(image, false);
        EXPECT_EQ(content(run(*root->runtime, "id -u")), "0");
        const std::string build =
            "mkdir -p /tmp/pkg/DEBIAN /tmp/pkg/usr/local/bin && printf 'Package: ahtest\\nVersion: 1.0\\nArchitecture: all\\n"
            "Maintainer: t <t@t>\\nDescription: test\\n' > /tmp/pkg/DEBIAN/control && printf '#!/bin/sh\\necho installed\\n' > "
            "/tmp/pkg/usr/local/bin/ahtest && chmod 755 /tmp/pkg/usr/local/bin/ahtest && dpkg-deb --build /tmp/pkg /tmp/ahtest.deb "
            ">/dev/null && dpkg -i /tmp/ahtest.deb >/dev/null && ahtest && dpkg -s ahtest | grep Status";
        json obs = run(*root->runtime, build, 120);
        EXPECT_EQ(exit_code(obs), 0) << obs.dump();
        EXPECT_NE(content(obs).find("installed"), std::string::npos) << obs.dump();
        EXPECT_NE(content(obs).find("install ok installed"), std::string::npos) << obs.dump();
        EXPECT_NE(content(run(*root->runtime, "python3 -c 'import sys; print(sys.version_info[0])'")).find("3"), std::string::npos);
    }
    auto user = start_image(image, true);
    EXPECT_EQ(content(run(*user->runtime, "id -un")), "openhands");
    EXPECT_EQ(content(run(*user->runtime, "grep -c '^openhands:' /etc/passwd")), "1");
    // Nothing of the other sandbox's dpkg run.
    EXPECT_NE(exit_code(run(*user->runtime, "command -v ahtest")), 0);
}

namespace {

// The layout's one image turned into a two-platform image index (amd64: the image; arm64: the same
// layers under a config saying arm64), as a multi-architecture image is published.
void make_multi_platform(const std::string &layout) {
    auto blob_path = [&](const std::string &digest) { return layout + "/blobs/sha256/" + digest.substr(7); };
    auto put = [&](const json &doc) {
        const std::string tmp = layout + "/doc.tmp";
        std::ofstream(tmp) << doc.dump();
        const std::string hex = at::sha256_of_file(tmp);
        fs::rename(tmp, layout + "/blobs/sha256/" + hex);
        return json{{"digest", "sha256:" + hex}, {"size", fs::file_size(layout + "/blobs/sha256/" + hex)}};
    };
    json index = json::parse(std::ifstream(layout + "/index.json"));
    json amd64 = index["manifests"][0];
    json manifest = json::parse(std::ifstream(blob_path(amd64["digest"])));
    json config = json::parse(std::ifstream(blob_path(manifest["config"]["digest"])));
    config["architecture"] = "arm64";
    json arm_config = put(config);
    manifest["config"]["digest"] = arm_config["digest"];
    manifest["config"]["size"] = arm_config["size"];
    json arm64 = put(manifest);
    arm64["mediaType"] = "application/vnd.oci.image.manifest.v1+json";
    arm64["platform"] = {{"os", "linux"}, {"architecture", "arm64"}};
    amd64.erase("annotations");
    amd64["platform"] = {{"os", "linux"}, {"architecture", "amd64"}};
    json inner = put({{"schemaVersion", 2}, {"mediaType", "application/vnd.oci.image.index.v1+json"}, {"manifests", {arm64, amd64}}});
    inner["mediaType"] = "application/vnd.oci.image.index.v1+json";
    inner["annotations"] = {{"org.opencontainers.image.ref.name", "v1"}};
    index["manifests"] = json::array({inner});
    std::ofstream(layout + "/index.json") << index.dump();
}

}  // namespace

// A multi-platform image (an image index) in a registry: this machine's platform is pulled, or the one
// sandbox.platform names; a platform the image lacks is refused, listing the ones it has.
TEST(SandboxImages, AnIndexIsResolvedForThePlatform) {
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    make_multi_platform(dir / "layout");
    LocalRegistry registry;
    if (!registry.started()) GTEST_SKIP() << registry.why_not();
    const std::string ref = registry.address() + "/tests/multi:1";
    auto pushed = at::run_process({"skopeo", "--insecure-policy", "copy", "--quiet", "--all", "--dest-tls-verify=false",
                                   "oci:" + (dir / "layout") + ":v1", "docker://" + ref}, 600);
    ASSERT_EQ(pushed.exit_code, 0) << pushed.output;
    auto s = start_image(ref);
    EXPECT_EQ(content(run(*s->runtime, "echo amd64 picked")), "amd64 picked");
    try {
        auto refused = start_image(ref, false, [](Config &c) { c.set("sandbox.platform", "linux/s390x"); });
        ADD_FAILURE() << "an s390x image that does not exist started";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("no linux/s390x variant"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("linux/arm64"), std::string::npos) << e.what();
    }
    // The layout's index is resolved the same way.
    auto from_layout = start_image("oci:" + (dir / "layout") + ":v1");
    EXPECT_EQ(content(run(*from_layout->runtime, "echo layout")), "layout");
}

// A Docker Hub reference through a mirror (sandbox.registry_mirrors): the mirror answers, Docker Hub is
// never asked (this machine could not reach it).
TEST(SandboxImages, DockerHubImagesComeThroughAMirror) {
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    LocalRegistry mirror;
    if (!mirror.started()) GTEST_SKIP() << mirror.why_not();
    ASSERT_EQ(at::skopeo_copy("oci:" + (dir / "layout") + ":v1", "docker://" + mirror.address() + "/library/ahtest-mirrored:1"), "");
    auto s = start_image("ahtest-mirrored:1", false,
                         [&](Config &c) { c.set("sandbox.registry_mirrors", json::array({"http://" + mirror.address()})); });
    EXPECT_EQ(content(run(*s->runtime, "echo mirrored")), "mirrored");
    // A mirror that asks for credentials gets its own, never Docker Hub's: with only Hub's in the docker
    // config the pull stops asking for the mirror's (before, Hub's password went to the mirror and to
    // whatever token realm it named).
    char salt[64];
    ASSERT_NE(crypt_gensalt_rn("$2b$", 5, nullptr, 0, salt, sizeof salt), nullptr);
    crypt_data data{};
    LocalRegistry locked(std::string("mirrored:") + crypt_r("mirror-pw", salt, &data) + "\n");
    if (!locked.started()) GTEST_SKIP() << locked.why_not();
    ASSERT_EQ(at::skopeo_copy("oci:" + (dir / "layout") + ":v1", "docker://" + locked.address() + "/library/ahtest-locked:1", "mirrored:mirror-pw"), "");
    at::TempDir auth("ahimg-auth");
    const auto basic = [](const std::string &user_password) { return base64_encode(user_password); };
    std::ofstream(auth / "config.json") << json{{"auths", {{"https://index.docker.io/v1/", {{"auth", basic("mirrored:hub-secret")}}}}}}.dump();
    ::setenv("DOCKER_CONFIG", auth.path().c_str(), 1);
    const auto through_locked = [&](Config &c) { c.set("sandbox.registry_mirrors", json::array({"http://" + locked.address()})); };
    try {
        auto refused = start_image("ahtest-locked:1", false, through_locked);
        ADD_FAILURE() << "pulled through a locked mirror with Docker Hub's credentials";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("docker login " + locked.address()), std::string::npos) << e.what();
    }
    std::ofstream(auth / "config.json") << json{{"auths", {{"https://index.docker.io/v1/", {{"auth", basic("mirrored:hub-secret")}}},
                                                           {locked.address(), {{"auth", basic("mirrored:mirror-pw")}}}}}}.dump();
    auto via_locked = start_image("ahtest-locked:1", false, through_locked);
    ::unsetenv("DOCKER_CONFIG");
    EXPECT_EQ(content(run(*via_locked->runtime, "echo locked mirror")), "locked mirror");
    // A plain-http mirror that is not on the loopback is refused before any request.
    try {
        auto refused = start_image("ahtest-mirrored:2", false,
                                   [](Config &c) { c.set("sandbox.registry_mirrors", json::array({"http://mirror.example:5000"})); });
        ADD_FAILURE() << "a plain-http mirror off the loopback was used";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("plain http"), std::string::npos) << e.what();
    }
}

namespace {

actionhost::client::Config store_config(const std::string &state_dir) {
    Config c;
    c.set("core.state_dir", state_dir);
    return c;
}

bool has_image(const std::string &state_dir, const std::string &name) {
    for (const auto &i : actionhost::client::list_images(store_config(state_dir)))
        if (i.name == name) return true;
    return false;
}

}  // namespace

// A snapshot keeps what the sandbox wrote over its image — files anywhere, owners and modes, deletions
// (whiteouts), a directory replaced whole (opaque), hard and symbolic links, FIFOs — as a new image; a
// sandbox started from it (a fork) sees exactly that, and its own writes stay its own. The snapshotted
// sandbox runs on, its processes untouched.
TEST(SandboxImages, ASnapshotForksTheSandboxsFiles) {
    if (geteuid() != 0) GTEST_SKIP() << "the cgroup freezer is root's here";
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    auto a = start_image("oci:" + (dir / "layout") + ":v1");
    ASSERT_EQ(exit_code(run(*a->runtime, "test -e /bin/vi && test -n \"$(ls /usr/sbin)\"")), 0) << "the busybox root changed";
    const std::string writes =
        "mkdir -p /opt/tool && echo tool > /opt/tool/x && echo owned > /opt/owned && chown 1234:2345 /opt/owned && "
        "chmod 640 /opt/owned && echo data > /opt/h1 && ln /opt/h1 /opt/h2 && ln -s /etc/shadow /opt/link && mkfifo /opt/fifo && "
        "rm /bin/vi && rm -rf /usr/sbin && mkdir /usr/sbin && echo only > /usr/sbin/only && echo ws > /workspace/in-ws && "
        "echo 'extra:x:1234:2345::/:/bin/sh' >> /etc/passwd";
    ASSERT_EQ(exit_code(run(*a->runtime, writes)), 0);
    // A process that keeps counting through the snapshot.
    ASSERT_EQ(exit_code(run(*a->runtime, "(i=0; while [ $i -lt 100000 ]; do i=$((i+1)); echo $i > /tmp/count; sleep 0.05; done) "
                                         ">/dev/null 2>&1 & echo $! > /tmp/counter.pid")),
              0);
    const std::string counter = content(run(*a->runtime, "cat /tmp/counter.pid"));
    const std::string digest = a->runtime->snapshot("tests-fork:1");
    EXPECT_EQ(digest.rfind("sha256:", 0), 0u) << digest;
    EXPECT_TRUE(has_image(a->state->path(), "tests-fork:1"));
    // Thawed: the counter still runs, the same process, and goes on counting.
    const std::string before = content(run(*a->runtime, "cat /tmp/count"));
    EXPECT_EQ(exit_code(run(*a->runtime, "sleep 0.5; kill -0 " + counter)), 0);
    EXPECT_NE(content(run(*a->runtime, "cat /tmp/count")), before);

    auto b = start_image("tests-fork:1", false, [&](Config &c) { c.set("core.state_dir", a->state->path()); });
    EXPECT_EQ(content(run(*b->runtime, "cat /opt/tool/x")), "tool");
    EXPECT_EQ(content(run(*b->runtime, "stat -c '%u:%g %a' /opt/owned")), "1234:2345 640");
    EXPECT_EQ(content(run(*b->runtime, "[ $(stat -c %i /opt/h1) = $(stat -c %i /opt/h2) ] && stat -c %h /opt/h1")), "2");
    EXPECT_EQ(content(run(*b->runtime, "readlink /opt/link")), "/etc/shadow");
    EXPECT_EQ(exit_code(run(*b->runtime, "test -p /opt/fifo")), 0);
    EXPECT_NE(exit_code(run(*b->runtime, "test -e /bin/vi")), 0) << "a deleted file came back";
    EXPECT_EQ(content(run(*b->runtime, "ls /usr/sbin")), "only") << "the replaced directory kept the image's entries";
    EXPECT_EQ(content(run(*b->runtime, "grep -c '^extra:' /etc/passwd")), "1");
    EXPECT_NE(exit_code(run(*b->runtime, "test -e /workspace/in-ws")), 0) << "the workspace is not the image's";
    EXPECT_EQ(content(run(*b->runtime, "busybox echo still busybox")), "still busybox");
    // The fork's writes are its own: a does not see them.
    ASSERT_EQ(exit_code(run(*b->runtime, "echo fork > /opt/only-in-b")), 0);
    EXPECT_NE(exit_code(run(*a->runtime, "test -e /opt/only-in-b")), 0);
    // A snapshot of the fork stacks another layer: both sandboxes' writes.
    b->runtime->snapshot("tests-fork:2");
    auto c = start_image("tests-fork:2", false, [&](Config &cfg) { cfg.set("core.state_dir", a->state->path()); });
    EXPECT_EQ(content(run(*c->runtime, "cat /opt/only-in-b /opt/tool/x")), "fork\ntool");
}

// rmi: an image a running sandbox stands on is refused; once it stops the image goes, with the blobs and
// unpacked layers no other image needs, and never what another image still needs.
TEST(SandboxImages, RemovingAnImageSparesWhatIsStillNeeded) {
    if (geteuid() != 0) GTEST_SKIP() << "the cgroup freezer is root's here";
    at::TempDir dir("ahimg");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    const std::string base = "oci:" + (dir / "layout") + ":v1";
    at::TempDir state("ahimg-state");
    auto a = start_image(base, false, [&](Config &c) { c.set("core.state_dir", state.path()); });
    ASSERT_EQ(exit_code(run(*a->runtime, "mkdir -p /opt && head -c 3000000 /dev/urandom > /opt/big")), 0);
    a->runtime->snapshot("tests-big");
    auto b = start_image("tests-big", false, [&](Config &c) { c.set("core.state_dir", state.path()); });
    try {
        actionhost::client::remove_image(store_config(state.path()), "tests-big");
        ADD_FAILURE() << "an image in use was removed";
    } catch (const actionhost::client::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
    }
    EXPECT_EQ(content(run(*b->runtime, "wc -c < /opt/big")), "3000000");
    EXPECT_THROW(actionhost::client::remove_image(store_config(state.path()), base), actionhost::client::RuntimeError) << "a runs on it";
    // Once a stops, the base goes; its layers stay, for the snapshot stacks on them: another sandbox of
    // the snapshot starts, and b runs on.
    a.reset();
    actionhost::client::remove_image(store_config(state.path()), base);
    EXPECT_FALSE(has_image(state.path(), base));
    auto c = start_image("tests-big", false, [&](Config &cfg) { cfg.set("core.state_dir", state.path()); });
    EXPECT_EQ(content(run(*c->runtime, "wc -c < /opt/big && busybox echo c runs")), "3000000\nc runs");
    EXPECT_EQ(content(run(*b->runtime, "busybox echo b runs")), "b runs");
    b.reset();
    c.reset();
    const uint64_t freed = actionhost::client::remove_image(store_config(state.path()), "tests-big");
    EXPECT_GE(freed, 3000000u) << "the snapshot's layer blob stayed";
    EXPECT_FALSE(has_image(state.path(), "tests-big"));
    // Nothing left behind: no blob, no unpacked layer.
    size_t left = 0;
    for (const char *sub : {"/images/blobs/sha256", "/images/layers"})
        for (const auto &e : fs::recursive_directory_iterator(state.path() + sub))
            if (!e.is_directory() || e.path().parent_path().filename() != "layers") ++left;
    EXPECT_EQ(left, 0u);
    try {
        actionhost::client::remove_image(store_config(state.path()), "tests-big");
        ADD_FAILURE() << "a removed image was removed again";
    } catch (const actionhost::client::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("no image named"), std::string::npos) << e.what();
    }
}

// A sandbox on the machine's own /usr has no layer of its own to keep: the error says how to get one.
TEST(SandboxImages, ASnapshotNeedsAnImage) {
    auto s = start_runtime("sandbox");
    try {
        s->runtime->snapshot("nothing");
        ADD_FAILURE() << "a sandbox without an image was snapshotted";
    } catch (const actionhost::client::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("--image"), std::string::npos) << e.what();
    }
    EXPECT_EQ(content(run(*s->runtime, "echo runs")), "runs");
}

// The same through ahctl, as a user would (the agent as openhands, its home in the image): start on an
// image, change it, snapshot, list, run the fork (openhands already in its /etc/passwd),
// remove the image once nothing runs on it.
TEST(SandboxImagesAhctl, SnapshotImagesAndRmi) {
    if (geteuid() != 0) GTEST_SKIP() << "the cgroup freezer is root's here";
    at::TempDir dir("ahimg"), state("ahimg-state");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    auto ahctl = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {at::build_path("bin/ahctl"), "-q", "--state-dir", state.path(), "-r", "sandbox"});
        return at::run_process(args, 120);
    };
    auto started = ahctl({"--image", "oci:" + (dir / "layout") + ":v1", "start"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    const std::string sid = started.output.substr(0, started.output.find('\n'));
    // Stopped however the test ends: a kept sandbox outlives its state directory otherwise.
    struct StopAtEnd {
        std::function<void()> stop;
        ~StopAtEnd() { stop(); }
    } stop_at_end{[&] { ahctl({"stop", sid}); }};
    auto wrote = ahctl({"-s", sid, "run", "--", "echo made-in-a > ~/mark"});
    ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
    auto snap = ahctl({"-s", sid, "snapshot", "tests-ahctl"});
    EXPECT_EQ(snap.exit_code, 0) << snap.output;
    EXPECT_EQ(snap.output.rfind("sha256:", 0), 0u) << snap.output;
    auto listed = ahctl({"images"});
    EXPECT_NE(listed.output.find("tests-ahctl"), std::string::npos) << listed.output;
    auto fork = ahctl({"--image", "tests-ahctl", "run", "--", "cat ~/mark && whoami"});
    EXPECT_EQ(fork.exit_code, 0) << fork.output;
    EXPECT_NE(fork.output.find("made-in-a\nopenhands"), std::string::npos) << fork.output;
    // A fork of three kept sandboxes at once from the snapshot.
    auto forks = ahctl({"--image", "tests-ahctl", "start", "--count", "3"});
    EXPECT_EQ(forks.exit_code, 0) << forks.output;
    std::vector<std::string> fork_ids;
    std::istringstream lines(forks.output);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) fork_ids.push_back(line);
    EXPECT_EQ(fork_ids.size(), 3u) << forks.output;
    for (const auto &id : fork_ids) EXPECT_NE(ahctl({"-s", id, "run", "--", "cat ~/mark"}).output.find("made-in-a"), std::string::npos) << id;
    EXPECT_EQ(ahctl({"rmi", "tests-ahctl"}).exit_code, 1) << "removed while three forks run on it";
    std::vector<std::string> stop_forks = {"stop"};
    stop_forks.insert(stop_forks.end(), fork_ids.begin(), fork_ids.end());
    EXPECT_EQ(ahctl(stop_forks).exit_code, 0);
    // Without -s there is nothing to snapshot; the base image is in use by the kept sandbox.
    EXPECT_EQ(ahctl({"snapshot", "x"}).exit_code, 2);
    auto in_use = ahctl({"rmi", "oci:" + (dir / "layout") + ":v1"});
    EXPECT_EQ(in_use.exit_code, 1) << in_use.output;
    EXPECT_NE(in_use.output.find("in use"), std::string::npos) << in_use.output;
    EXPECT_EQ(ahctl({"stop", sid}).exit_code, 0);
    auto removed = ahctl({"rmi", "tests-ahctl", "oci:" + (dir / "layout") + ":v1"});
    EXPECT_EQ(removed.exit_code, 0) << removed.output;
    EXPECT_EQ(ahctl({"images", "--json"}).output.find("tests-ahctl"), std::string::npos);
}

// push: a snapshot sent to Debian's docker-registry (started here on 127.0.0.1) without a daemon — behind
// htpasswd with the credentials of a docker config.json; skopeo, another registry client, reads it back;
// a fresh store pulls it and a sandbox starts from it. A second push sends only the manifest.
TEST(SandboxImages, ASnapshotIsPushedToARegistryAndPulledElsewhere) {
    if (geteuid() != 0) GTEST_SKIP() << "the cgroup freezer is root's here";
    at::TempDir dir("ahimg"), state("ahimg-state"), elsewhere("ahimg-elsewhere"), auth("ahimg-auth");
    ASSERT_EQ(busybox_layout(dir / "layout"), "");
    char salt[64];
    ASSERT_NE(crypt_gensalt_rn("$2b$", 5, nullptr, 0, salt, sizeof salt), nullptr);
    crypt_data data{};
    LocalRegistry registry(std::string("pusher:") + crypt_r("push-pw", salt, &data) + "\n");
    if (!registry.started()) GTEST_SKIP() << registry.why_not();
    {
        auto a = start_image("oci:" + (dir / "layout") + ":v1", false, [&](Config &c) { c.set("core.state_dir", state.path()); });
        ASSERT_EQ(exit_code(run(*a->runtime, "mkdir -p /opt && echo pushed-file > /opt/p")), 0);
        a->runtime->snapshot("tests-to-push");
    }
    const std::string ref = registry.address() + "/tests/pushed:1";
    try {
        actionhost::client::push_image(store_config(state.path()), "tests-to-push", ref);
        ADD_FAILURE() << "pushed without credentials";
    } catch (const actionhost::client::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("docker login"), std::string::npos) << e.what();
    }
    std::ofstream(auth / "config.json") << json{{"auths", {{registry.address(), {{"auth", base64_encode("pusher:push-pw")}}}}}}.dump();
    ::setenv("DOCKER_CONFIG", auth.path().c_str(), 1);
    std::vector<std::string> lines;
    const std::string digest = actionhost::client::push_image(store_config(state.path()), "tests-to-push", ref,
                                                              [&](const std::string &l) { lines.push_back(l); });
    EXPECT_EQ(digest.rfind("sha256:", 0), 0u);
    bool uploaded = false;
    for (const auto &l : lines) uploaded = uploaded || l.find("layer") != std::string::npos;
    EXPECT_TRUE(uploaded);
    lines.clear();
    EXPECT_EQ(actionhost::client::push_image(store_config(state.path()), "tests-to-push", ref, [&](const std::string &l) { lines.push_back(l); }),
              digest);
    for (const auto &l : lines) EXPECT_NE(l.find("already there"), std::string::npos) << l;
    // Another client reads it: skopeo copies it into an OCI layout.
    auto copied = at::run_process({"skopeo", "--insecure-policy", "copy", "--quiet", "--src-tls-verify=false", "--src-creds", "pusher:push-pw",
                                   "docker://" + ref, "oci:" + (dir / "copied") + ":1"},
                                  300);
    EXPECT_EQ(copied.exit_code, 0) << copied.output;
    // A store that never saw it pulls it; a sandbox starts from it.
    auto b = start_image(ref, false, [&](Config &c) { c.set("core.state_dir", elsewhere.path()); });
    ::unsetenv("DOCKER_CONFIG");
    EXPECT_EQ(content(run(*b->runtime, "cat /opt/p")), "pushed-file");
    EXPECT_THROW(actionhost::client::push_image(store_config(state.path()), "no-such-image", ref), actionhost::client::RuntimeError);
}
