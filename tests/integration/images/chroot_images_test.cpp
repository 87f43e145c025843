// The bundle's host in the busybox, Debian and an empty root without dockerd: a mount and pid namespace of its
// own, chroot, the bundle bind-mounted at /openhands/actionhost, nothing else of the machine but /dev
// and /proc. The same checks as in the docker images.
#include <gtest/gtest.h>

#include <filesystem>

#include "images_harness.hpp"
#include "support/test_images.hpp"

using namespace images_test;
using nlohmann::json;

TEST(ImagesChroot, BusyboxRunsBashFilesAndSaysJupyterNeedsIpykernel) {
    actionhost::testing::TempDir dir("ahchroot-busybox");
    ASSERT_EQ(actionhost::testing::make_busybox_rootfs(dir / "root"), "");
    ChrootHost host(dir / "root", {"--plugins", "jupyter", "agent_skills"});
    ASSERT_TRUE(host.started()) << host.why_not();
    auto &wire = host.wire();
    EXPECT_EQ(wire_run(wire, "echo hi; readlink /proc/$$/exe").value("content", ""), "hi\n/openhands/actionhost/libexec/bash");
    json w = wire.execute({{"action", "write"}, {"args", {{"path", "/workspace/a.txt"}, {"content", "one\ntwo"}}}});
    EXPECT_EQ(w.value("observation", ""), "write") << w.dump();
    json e = wire.execute({{"action", "edit"},
                           {"args", {{"command", "str_replace"}, {"path", "/workspace/a.txt"}, {"old_str", "two"}, {"new_str", "three"}, {"impl_source", "oh_aci"}}}});
    EXPECT_EQ(e.value("observation", ""), "edit") << e.dump();
    json r = wire.execute({{"action", "read"}, {"args", {{"path", "/workspace/a.txt"}}}});
    EXPECT_EQ(r.value("content", ""), "one\nthree\n") << r.dump();
    expect_no_loader_leak(wire);
    expect_jupyter_needs_ipykernel(wire);
}

TEST(ImagesChroot, DebianRunsItsOwnBashAndAnIPythonCell) {
    std::string why;
    const std::string tar = actionhost::testing::debian_rootfs_tar(why);
    ASSERT_FALSE(tar.empty()) << why;
    actionhost::testing::TempDir dir("ahchroot-debian");
    ASSERT_EQ(actionhost::testing::unpack_rootfs(tar, dir / "root"), "");
    ChrootHost host(dir / "root", {"--plugins", "jupyter"});
    ASSERT_TRUE(host.started()) << host.why_not();
    expect_debian_image_tools(host.wire());
}

// A distroless-like root: no shell, no libc, no tools at all, only /etc/passwd. The host, its files
// actions and the bundle's static bash (its builtins) still serve; jupyter says what it needs.
TEST(ImagesChroot, AnEmptyRootLikeDistrolessStillServes) {
    actionhost::testing::TempDir dir("ahchroot-empty");
    const std::string root = dir / "root";
    for (const char *d : {"etc", "tmp", "root"}) std::filesystem::create_directories(root + "/" + d);
    actionhost::testing::write_file(root + "/etc/passwd", "root:x:0:0:root:/root:/sbin/nologin\n");
    actionhost::testing::write_file(root + "/etc/group", "root:x:0:\n");
    ChrootHost host(root, {"--plugins", "jupyter"});
    ASSERT_TRUE(host.started()) << host.why_not();
    auto &wire = host.wire();
    EXPECT_EQ(wire_run(wire, "echo $((6 * 7)) in $PWD").value("content", ""), "42 in /workspace");
    json w = wire.execute({{"action", "write"}, {"args", {{"path", "/workspace/x.txt"}, {"content", "kept"}}}});
    EXPECT_EQ(w.value("observation", ""), "write") << w.dump();
    EXPECT_EQ(wire_run(wire, "read -r line < x.txt; echo \"$line\"").value("content", ""), "kept");
    json missing = wire_run(wire, "ls");
    EXPECT_NE(missing.value("content", "").find("ls: command not found"), std::string::npos) << missing.dump();
    expect_jupyter_needs_ipykernel(wire);
}
