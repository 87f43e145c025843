// sandbox.disk_limit against a command that wants the machine's disk (docs/security.md, "Resources"):
// the sandbox's writable layer and its temporary workspace live on a disk of its own (an ext4 image on a
// loop device, mounted only in the sandbox's mount namespace). Filled with data, with many small files
// (inodes) or through a sparse file, it answers ENOSPC inside; the host keeps answering; the machine's
// free space falls by at most the limit and comes back when files are removed; nothing of the disk is
// left on the machine after the stop. As nobody (no loop devices) the limit is refused, saying why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "integration/runtimes/runtime_harness.hpp"
#include "support/oci_layout.hpp"
#include "support/temp_dir.hpp"
#include "support/test_images.hpp"

using namespace runtimes_test;
namespace at = actionhost::testing;
using actionhost::client::Config;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string content(const json &obs) { return obs.value("content", ""); }

// Free bytes of the file system the run directories are on.
// What the sandbox of `session` occupies on the machine's disk: the blocks of every file of its run
// directory (/tmp/ah-sandbox-<session>-*), where its disk image — its writable layer, its scratch space
// and its temporary workspace — lives. Measured there rather than as the file system's free space,
// which the other tests of a parallel run change meanwhile.
int64_t sandbox_bytes(const std::string &session) {
    const char *tmp = std::getenv("TMPDIR");
    const fs::path top = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    int64_t total = 0;
    std::error_code ec;
    for (const auto &run_dir : fs::directory_iterator(top, ec)) {
        if (run_dir.path().filename().string().rfind("ah-sandbox-" + session + "-", 0) != 0) continue;
        for (auto it = fs::recursive_directory_iterator(run_dir.path(), fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            struct stat st{};
            if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) total += static_cast<int64_t>(st.st_blocks) * 512;
        }
    }
    return total;
}

std::string busybox_layout(const at::TempDir &dir) {
    at::TempDir root("ahdisk-root");
    if (auto why = at::make_busybox_rootfs(root.path()); !why.empty()) return why;
    if (auto why = at::tar_directory(root.path(), dir / "layer.tar"); !why.empty()) return why;
    return at::write_oci_layout(dir / "layout", "v1", {{dir / "layer.tar", true}});
}

// Lines of the machine's mount table and loop devices that name `what`.
std::string traces_of(const std::string &what) {
    std::string found;
    std::ifstream mounts("/proc/self/mountinfo");
    for (std::string line; std::getline(mounts, line);)
        if (line.find(what) != std::string::npos) found += "mount: " + line + "\n";
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/sys/block", ec)) {
        std::ifstream backing(e.path() / "loop/backing_file");
        std::string file;
        if (std::getline(backing, file) && file.find(what) != std::string::npos) found += "loop: " + e.path().filename().string() + " " + file + "\n";
    }
    return found;
}

constexpr int64_t kLimit = 64ll << 20;
constexpr int64_t kSlack = 8ll << 20;  // the file system's own metadata and the host's logs

}  // namespace

TEST(SandboxDisk, AFullDiskIsNoSpaceInsideAndTheMachineLosesAtMostTheLimit) {
    at::TempDir dir("ahdisk");
    ASSERT_EQ(busybox_layout(dir), "");
    std::unique_ptr<StartedRuntime> s;
    try {
        s = start_runtime("sandbox", [&](Config &c) {
            c.set("sandbox.base_container_image", "oci:" + (dir / "layout") + ":v1");
            c.set("sandbox.disk_limit", "64m");
            c.set("core.workspace_base", "");  // a temporary workspace: on the disk too
        });
    } catch (const std::exception &e) {
        if (geteuid() == 0) FAIL() << e.what();
        EXPECT_NE(std::string(e.what()).find("disk_limit needs the machine's root"), std::string::npos) << e.what();
        return;
    }
    ASSERT_EQ(geteuid(), 0u) << "an unprivileged caller got a disk limit it cannot have";
    const std::string session = s->runtime->session_id();
    const int64_t before = sandbox_bytes(session);
    auto lost = [&] { return sandbox_bytes(session) - before; };
    ASSERT_EQ(exit_code(run(*s->runtime, "mkdir -p /opt && echo kept > /opt/small")), 0);

    // Data: the writable layer fills up.
    json obs = run(*s->runtime, "dd if=/dev/urandom of=/opt/fill bs=1M count=200 2>&1; echo rc=$?", 120);
    EXPECT_NE(content(obs).find("No space left"), std::string::npos) << content(obs);
    EXPECT_EQ(content(run(*s->runtime, "echo still answering")), "still answering");
    EXPECT_LE(lost(), kLimit + kSlack) << "the machine lost more than the limit";
    EXPECT_GE(lost(), kLimit / 2) << "the measure sees nothing of what the sandbox wrote";
    // The temporary workspace is on the same disk.
    obs = run(*s->runtime, "dd if=/dev/zero of=/workspace/more bs=1M count=10 2>&1");
    EXPECT_NE(content(obs).find("No space left"), std::string::npos) << content(obs);
    // Removed, the space comes back to the machine (discard punches holes in the image).
    ASSERT_EQ(exit_code(run(*s->runtime, "rm -f /opt/fill /workspace/more && sync")), 0);
    EXPECT_LE(lost(), kSlack) << "removed files kept the machine's space";

    // A sparse file may be large; what is written into it is bounded all the same.
    obs = run(*s->runtime, "truncate -s 4G /opt/sparse && dd if=/dev/zero of=/opt/sparse bs=1M seek=1000 count=100 conv=notrunc 2>&1");
    EXPECT_NE(content(obs).find("No space left"), std::string::npos) << content(obs);
    EXPECT_LE(lost(), kLimit + kSlack);
    ASSERT_EQ(exit_code(run(*s->runtime, "rm -f /opt/sparse")), 0);

    // Inodes: many small files end in ENOSPC, bounded (the shell's own redirection: no process per file).
    obs = run(*s->runtime, "mkdir /opt/many && cd /opt/many && i=0; while [ $i -lt 200000 ] && : > f$i 2>/dev/null; do "
                           "i=$((i+1)); done; echo $i; : > one-more 2>&1",
              600);
    EXPECT_NE(content(obs).find("No space left"), std::string::npos) << obs.dump().substr(0, 600);
    EXPECT_LT(std::atol(content(obs).c_str()), 200000) << "the inodes never ran out";
    EXPECT_EQ(content(run(*s->runtime, "rm -rf /opt/many && echo cleaned", 300)), "cleaned");
    // Hard links take no space and no inode of their own: a file linked many times counts once.
    obs = run(*s->runtime, "head -c 20000000 /dev/zero > /opt/linked && i=0; while [ $i -lt 100 ]; do ln /opt/linked /opt/l$i; "
                           "i=$((i+1)); done; df -k /opt | tail -1");
    EXPECT_EQ(exit_code(obs), 0) << content(obs);
    EXPECT_LE(lost(), 20ll * 1000 * 1000 + kSlack) << content(obs);
    ASSERT_EQ(exit_code(run(*s->runtime, "rm -f /opt/linked /opt/l*")), 0);

    // A snapshot reads the layer on the disk; the fork has what was kept.
    s->runtime->snapshot("tests-disk-snapshot");
    auto fork = start_runtime("sandbox", [&](Config &c) {
        c.set("sandbox.base_container_image", "tests-disk-snapshot");
        c.set("core.state_dir", s->state->path());
        c.set("sandbox.disk_limit", "32m");
    });
    EXPECT_EQ(content(run(*fork->runtime, "cat /opt/small")), "kept");
    fork.reset();

    // Nothing of the disk on the machine: no mount while it runs (its loop device is the machine's to
    // see), neither a mount nor a loop device after.
    EXPECT_EQ(traces_of("ah-sandbox-" + session.substr(0, 16)).find("mount:"), std::string::npos);
    s.reset();
    EXPECT_EQ(traces_of("ah-sandbox-" + session.substr(0, 16)), "");
}

// Without an image the sandbox writes only its workspace and scratch space: a temporary workspace is
// bounded by the disk, a bad limit is refused before anything starts.
TEST(SandboxDisk, TheTemporaryWorkspaceIsBoundedWithoutAnImage) {
    if (geteuid() != 0) GTEST_SKIP() << "the disk limit is root's (the unprivileged refusal is tested above)";
    auto s = start_runtime("sandbox", [](Config &c) {
        c.set("sandbox.disk_limit", "32m");
        c.set("core.workspace_base", "");
    });
    const json obs = run(*s->runtime, "dd if=/dev/zero of=/workspace/fill bs=1M count=100 2>&1");
    EXPECT_NE(content(obs).find("No space left"), std::string::npos) << content(obs);
    EXPECT_EQ(content(run(*s->runtime, "rm /workspace/fill && echo ok")), "ok");
    for (const char *bad : {"lots", "1k", "-5g"}) {
        try {
            start_runtime("sandbox", [&](Config &c) { c.set("sandbox.disk_limit", bad); });
            ADD_FAILURE() << bad << " was taken for a disk limit";
        } catch (const std::exception &e) {
            EXPECT_NE(std::string(e.what()).find("sandbox.disk_limit"), std::string::npos) << e.what();
        }
    }
}
