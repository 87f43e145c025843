// The workspace as a way out of the sandbox: which directory becomes the workspace, and what the
// handover of a root-owned workspace to the sandbox's ids may touch (docs/security.md, "Identity").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "integration/runtimes/runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"
#include "sandbox_probe.hpp"

using namespace runtimes_test;
using actionhost::client::Config;
using actionhost::client::RuntimeOptions;
using actionhost::testing::run_process;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string quote(const std::string &s) { return actionhost::testing::sh_word(s); }

struct Owner {
    uid_t uid;
    gid_t gid;
    mode_t mode;
};
Owner owner_of(const std::string &path) {
    struct stat st{};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return {st.st_uid, st.st_gid, st.st_mode & 07777};
}

// Starts a sandbox on `workspace`; "" when it started, else the refusal.
std::string start_refusal(const std::string &workspace, const std::function<void(Config &)> &tweak = {}) {
    TempDir state("ahsec-state");
    RuntimeOptions o = test_runtime_options("sandbox", workspace, state.path());
    if (tweak) tweak(o.config);
    try {
        auto rt = actionhost::client::Runtime::create(std::move(o));
        rt->connect();
        rt->close();
        return "";
    } catch (const std::exception &e) {
        return e.what();
    }
}

}  // namespace

// 3a. Neither the idmapped mount of a root-owned workspace nor its handover (the fallback) reaches what
// is mounted inside it: a directory or a file bound there from elsewhere stays its owner's, and out of
// the sandbox's reach.
TEST(SandboxWorkspace, NeitherTheIdmapNorTheHandoverCrossesAMount) {
    if (geteuid() != 0) GTEST_SKIP() << "only root can bind-mount, and only a root caller's sandbox maps or hands over";
    for (const bool idmap : {true, false}) {
        SCOPED_TRACE(idmap ? "idmapped mount" : "handover");
        TempDir dir("ahsec-mounts");
        fs::create_directories(dir / "ws/shared");
        fs::create_directories(dir / "victim");
        write_file(dir / "victim/secret", "machine secret\n");
        chmod((dir / "victim/secret").c_str(), 0600);
        chmod((dir / "victim").c_str(), 0700);
        write_file(dir / "victim-file", "machine file\n");
        chmod((dir / "victim-file").c_str(), 0600);
        write_file(dir / "ws/onefile", "");
        // The mounts live in a mount namespace of their own (unshare -m), with the sandbox started inside
        // it: the machine's mount table is never touched. ahctl starts the sandbox there.
        const std::string script =
            "mount --bind " + quote(dir / "victim") + " " + quote(dir / "ws/shared") + " && mount --bind " +
            quote(dir / "victim-file") + " " + quote(dir / "ws/onefile") + " && " + quote(actionhost::testing::build_path("bin/ahctl")) +
            " -q -r sandbox --set sandbox.workspace_idmap=" + (idmap ? "true" : "false") + " --state-dir " + quote(dir / "state") +
            " -w " + quote(dir / "ws") +
            " run -- 'cat /workspace/shared/secret /workspace/onefile; echo changed >> /workspace/shared/secret; echo changed >> /workspace/onefile; echo done'";
        auto r = run_process({"unshare", "-m", "--propagation", "private", "sh", "-c", script}, 120, {"HOME=" + dir.path()});
        EXPECT_NE(r.output.find("done"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("machine secret"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("machine file"), std::string::npos) << r.output;
        for (const char *victim : {"victim", "victim/secret", "victim-file"}) {
            const Owner o = owner_of(dir / victim);
            EXPECT_EQ(o.uid, 0u) << victim << " was handed to the sandbox";
            EXPECT_EQ(o.gid, 0u) << victim;
        }
        EXPECT_EQ(actionhost::testing::read_file(dir / "victim/secret"), "machine secret\n");
        EXPECT_EQ(actionhost::testing::read_file(dir / "victim-file"), "machine file\n");
        // The workspace itself: root's still (mapped), or handed over.
        if (idmap) EXPECT_EQ(owner_of(dir / "ws").uid, 0u);
        else EXPECT_NE(owner_of(dir / "ws").uid, 0u);
    }
}

// 3a'. A root caller's root-owned workspace through an idmapped mount: the sandbox's user owns it inside,
// every file stays root's on the machine (git there keeps trusting the repository), nothing is chowned,
// and no set-user-ID file can be made there (it would be root's on the machine). A file with a hard link
// outside the workspace makes the start fall back to the handover, said so, and that file stays root's.
TEST(SandboxWorkspace, ARootOwnedWorkspaceIsIdmappedNotChowned) {
    if (geteuid() != 0) GTEST_SKIP() << "only a root caller's workspace is mapped";
    TempDir dir("ahsec-idmap");
    fs::create_directories(dir / "repo/src");
    write_file(dir / "repo/src/main.c", "int main(void) { return 0; }\n");
    ASSERT_EQ(run_process({"git", "-C", dir / "repo", "init", "-q"}, 60).exit_code, 0);
    ASSERT_EQ(run_process({"git", "-C", dir / "repo", "-c", "user.email=t@t", "-c", "user.name=t", "add", "."}, 60).exit_code, 0);
    const std::string ahctl = actionhost::testing::build_path("bin/ahctl");
    auto r = run_process({ahctl, "-r", "sandbox", "--state-dir", dir / "state", "-w", dir / "repo", "run", "--",
                          "id -un; stat -c %U /workspace/src/main.c; echo made > /workspace/new; mkdir /workspace/newdir; "
                          "cp /bin/sh /workspace/tool 2>/dev/null || cp $(command -v bash) /workspace/tool; "
                          "chmod 4755 /workspace/tool 2>&1; echo end"},
                         120, {"HOME=" + dir.path()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("openhands\nopenhands\n"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Operation not permitted"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("belong to the sandbox's user"), std::string::npos) << "handed over: " << r.output;
    for (const char *p : {"repo", "repo/src", "repo/src/main.c", "repo/new", "repo/newdir", "repo/tool", "repo/.git/index"}) {
        const Owner o = owner_of(dir / p);
        EXPECT_EQ(o.uid, 0u) << p;
        EXPECT_EQ(o.gid, 0u) << p;
        EXPECT_EQ(o.mode & 06000, 0u) << p << " is set-user/group-ID on the machine";
    }
    // The host (the sandbox's root) creates files there too: an edit's new file and an upload with its
    // directory are the sandbox user's (so the agent can edit what was copied in), stored through the
    // idmapped mount as the workspace owner's, root's, as every other file there; never set-user-ID.
    r = run_process({ahctl, "-r", "sandbox", "--state-dir", dir / "state", "-w", dir / "repo", "edit", "create",
                     "/workspace/src/by-host.py", "--file-text", "x = 1"},
                    120, {"HOME=" + dir.path()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(actionhost::testing::read_file(dir / "repo/src/by-host.py"), "x = 1");
    write_file(dir / "upload.txt", "uploaded\n");
    r = run_process({ahctl, "-r", "sandbox", "--state-dir", dir / "state", "-w", dir / "repo", "cp", dir / "upload.txt",
                     "sandbox:/workspace/up/"},
                    120, {"HOME=" + dir.path()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(actionhost::testing::read_file(dir / "repo/up/upload.txt"), "uploaded\n");
    EXPECT_EQ(owner_of(dir / "repo/src/by-host.py").uid, 0u);
    for (const char *p : {"repo/up", "repo/up/upload.txt"}) {
        const Owner o = owner_of(dir / p);
        EXPECT_EQ(o.uid, 0u) << p << " is not the workspace owner's";
        EXPECT_EQ(o.gid, 0u) << p;
        EXPECT_EQ(o.mode & 06000, 0u) << p;
    }
    r = run_process({ahctl, "-r", "sandbox", "--state-dir", dir / "state", "-w", dir / "repo", "run", "--",
                     "echo edited >> /workspace/up/upload.txt && stat -c %U /workspace/up/upload.txt"},
                    120, {"HOME=" + dir.path()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("openhands"), std::string::npos) << "the agent owns what was copied in: " << r.output;

    auto git = run_process({"git", "-C", dir / "repo", "status", "--porcelain"}, 60);
    EXPECT_EQ(git.exit_code, 0) << git.output;
    EXPECT_EQ(git.output.find("dubious"), std::string::npos) << git.output;

    // A hard link out of the workspace: the mapping would give that file too. Handed over instead, said so.
    write_file(dir / "machine-file", "the machine's\n");
    ASSERT_EQ(::link((dir / "machine-file").c_str(), (dir / "repo/linked").c_str()), 0);
    r = run_process({ahctl, "-r", "sandbox", "--state-dir", dir / "state", "-w", dir / "repo", "run", "--",
                     "echo mine >> /workspace/linked 2>&1; stat -c %U /workspace/linked; echo end"},
                    120, {"HOME=" + dir.path()});
    EXPECT_NE(r.output.find("has a hard link outside it"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("nobody"), std::string::npos) << r.output;
    EXPECT_EQ(actionhost::testing::read_file(dir / "machine-file"), "the machine's\n");
    EXPECT_EQ(owner_of(dir / "machine-file").uid, 0u);

    // A set-user-ID file of root's in the workspace: mapped, the sandbox (as root) could rewrite it and
    // keep the bit. Handed over instead, which clears it.
    fs::create_directories(dir / "tools");
    fs::copy_file("/bin/true", dir / "tools/suid-tool");
    ASSERT_EQ(::chmod((dir / "tools/suid-tool").c_str(), 04755), 0);
    r = run_process({ahctl, "-r", "sandbox", "--state-dir", dir / "state", "-w", dir / "tools", "run", "--", "true"}, 120,
                    {"HOME=" + dir.path()});
    EXPECT_NE(r.output.find("is set-user/group-ID"), std::string::npos) << r.output;
    EXPECT_EQ(owner_of(dir / "tools/suid-tool").mode & 06000, 0u) << "a set-user-ID file stayed in a mapped workspace";
}

// 3b. A workspace path through a link another user owns is refused: its owner could point it at any
// directory of the caller's (root's) — which the sandbox would then get, handed over.
TEST(SandboxWorkspace, AWorkspaceBehindAnotherUsersLinkIsRefused) {
    if (geteuid() != 0) GTEST_SKIP() << "a link of another user can only be made by root here";
    TempDir dir("ahsec-link");
    fs::create_directories(dir / "victim");
    write_file(dir / "victim/secret", "machine secret\n");
    chmod((dir / "victim").c_str(), 0700);
    fs::create_symlink(dir / "victim", dir / "ws-link");
    ASSERT_EQ(lchown((dir / "ws-link").c_str(), 65534, 65534), 0);
    const std::string why = start_refusal(dir / "ws-link");
    EXPECT_NE(why.find("passes through the symbolic link"), std::string::npos) << why;
    EXPECT_EQ(owner_of(dir / "victim").uid, 0u);
    EXPECT_EQ(owner_of(dir / "victim/secret").uid, 0u);
    // The caller's own link is followed as before.
    ASSERT_EQ(lchown((dir / "ws-link").c_str(), 0, 0), 0);
    EXPECT_EQ(start_refusal(dir / "ws-link"), "");
}

// 3b'. The same link swapped in and out of the path while sandboxes start (another user renaming a
// directory of theirs and their link into each other's place): no start may check one directory and
// hand over or mount another. Before the path was resolved once and opened refusing links, the 8th
// or 9th start here mounted root's directory and handed its 0600 file to the sandbox.
TEST(SandboxWorkspace, ALinkSwappedIntoThePathDuringStartsIsNeverFollowed) {
    if (geteuid() != 0) GTEST_SKIP() << "a link of another user can only be made by root here";
    TempDir dir("ahsec-swap");
    fs::create_directories(dir / "target/bin");
    write_file(dir / "target/bin/secret", "ROOT SECRET\n");
    chmod((dir / "target/bin/secret").c_str(), 0600);
    fs::create_directories(dir / "alice/project/bin");
    for (const char *p : {"alice", "alice/project", "alice/project/bin"}) ASSERT_EQ(chown((dir / p).c_str(), 65534, 65534), 0);
    fs::create_symlink(dir / "target", dir / "alice/plink");
    ASSERT_EQ(lchown((dir / "alice/plink").c_str(), 65534, 65534), 0);
    chmod(dir.path().c_str(), 0755);

    // Another user's racer: project and plink trade places as fast as renameat2 allows.
    std::atomic<bool> stop{false};
    std::atomic<long> swaps{0};
    std::thread racer([&] {
        const std::string a = dir / "alice/project", b = dir / "alice/plink";
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (!stop && std::chrono::steady_clock::now() < until)
            if (::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) ++swaps;
    });
    int started = 0, refused = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(40);
    for (int i = 0; i < 30 && std::chrono::steady_clock::now() < until; ++i) {
        TempDir state("ahsec-state");
        RuntimeOptions o = test_runtime_options("sandbox", dir / "alice/project/bin", state.path());
        try {
            auto rt = actionhost::client::Runtime::create(std::move(o));
            rt->connect();
            ++started;
            const json seen = run(*rt, "cat /workspace/secret 2>&1; ls -la /workspace");
            EXPECT_EQ(seen.value("content", "").find("ROOT SECRET"), std::string::npos) << "start " << i << ": " << seen.dump();
            rt->close();
        } catch (const std::exception &e) {
            ++refused;  // a swap seen: refused, as it must be
        }
        EXPECT_EQ(owner_of(dir / "target/bin").uid, 0u) << "start " << i << " handed root's directory over";
        EXPECT_EQ(owner_of(dir / "target/bin/secret").uid, 0u) << "start " << i << " handed root's file over";
        if (HasFailure()) break;
    }
    stop = true;
    racer.join();
    EXPECT_GT(swaps.load(), 1000) << "the racer did not race";
    EXPECT_GT(started + refused, 0);
    std::printf("  %d starts, %d refused, %ld swaps\n", started, refused, swaps.load());
}

// 3b''. The helper itself trusts no name: the backend hands it a path it resolved to one with no link in
// it, so a link found on that path later is a swap, and the start is refused before anything is
// handed over or mounted. Asked directly, ah-sandbox-init refuses even the caller's own link.
TEST(SandboxWorkspace, TheHelperRefusesALinkOnTheWorkspacePath) {
    TempDir dir("ahsec-helper");
    fs::create_directories(dir / "root");
    fs::create_directories(dir / "target/bin");
    write_file(dir / "target/bin/secret", "ROOT SECRET\n");
    chmod((dir / "target/bin/secret").c_str(), 0600);
    fs::create_symlink(dir / "target", dir / "link");
    const std::string init = actionhost::testing::build_path("lib/actionhost/runtimes/sandbox/ah-sandbox-init");
    const auto refused = run_process({init, "--root-mount", dir / "root", "--workspace", dir / "link/bin", "--", "/bin/true"}, 30);
    EXPECT_EQ(refused.exit_code, 125) << refused.output;
    EXPECT_NE(refused.output.find("passes through a symbolic link"), std::string::npos) << refused.output;
    EXPECT_EQ(owner_of(dir / "target/bin").uid, geteuid());
    EXPECT_EQ(owner_of(dir / "target/bin/secret").uid, geteuid());
    // The same directory named without the link starts.
    const auto started = run_process({init, "--root-mount", dir / "root", "--workspace", dir / "target/bin", "--", "/bin/true"}, 30);
    EXPECT_EQ(started.exit_code, 0) << started.output;
}

// 3c. The machine's system directories are never a workspace (read-write inside, and handed over).
TEST(SandboxWorkspace, SystemDirectoriesAreNeverWorkspaces) {
    for (const char *dir : {"/", "/etc", "/usr", "/root", "/home", "/var", "/tmp"}) {
        const std::string why = start_refusal(dir);
        EXPECT_NE(why.find("system directory"), std::string::npos) << dir << ": " << why;
    }
    struct stat st{};
    ASSERT_EQ(::stat("/etc", &st), 0);
    EXPECT_EQ(st.st_uid, 0u) << "/etc was handed over";
}

// 3d. The workspace's group does not come into the sandbox unless it is its owner's own: a root-owned
// workspace in a system group (postgres, docker, adm) must not give the sandbox that group.
TEST(SandboxWorkspace, AForeignGroupOfTheWorkspaceIsNotInherited) {
    if (geteuid() != 0) GTEST_SKIP() << "only root can give a directory another group here";
    TempDir dir("ahsec-group");
    fs::create_directories(dir / "ws");
    const gid_t system_group = 4242;  // a group the sandbox must not be in
    ASSERT_EQ(chown((dir / "ws").c_str(), 0, system_group), 0);
    write_file(dir / "group-only", "group secret\n");
    ASSERT_EQ(chown((dir / "group-only").c_str(), 0, system_group), 0);
    chmod((dir / "group-only").c_str(), 0640);
    chmod(dir.path().c_str(), 0755);
    auto s = std::make_unique<StartedRuntime>();
    TempDir state("ahsec-state");
    RuntimeOptions o = test_runtime_options("sandbox", dir / "ws", state.path());
    o.config.set("sandbox.network", false);
    s->runtime = actionhost::client::Runtime::create(std::move(o));
    s->runtime->connect();
    // Mapped (the default): the workspace keeps its group on the machine, shown as the sandbox's group
    // inside; the sandbox's processes are never in the system group (below).
    EXPECT_EQ(owner_of(dir / "ws").gid, system_group) << "the idmapped workspace was changed";
    EXPECT_EQ(run(*s->runtime, "stat -c %G /workspace").value("content", ""), "root");  // the sandbox's root here
    // The ids of a process of the sandbox, as the machine sees them.
    const std::string tag = "ahsec" + security_test::random_tag();
    run(*s->runtime, "python3 -c 'import time; time.sleep(600)' " + tag + " & disown");
    const std::string ids = security_test::outside_ids_of(tag);
    ASSERT_FALSE(ids.empty());
    for (long id : security_test::ids_on(ids)) EXPECT_NE(id, static_cast<long>(system_group)) << ids;
    s->runtime->close();
    // Handed over instead (sandbox.workspace_idmap = false): the workspace loses the system group.
    TempDir state2("ahsec-state");
    RuntimeOptions chown_options = test_runtime_options("sandbox", dir / "ws", state2.path());
    chown_options.config.set("sandbox.workspace_idmap", false);
    auto handed = actionhost::client::Runtime::create(std::move(chown_options));
    handed->connect();
    EXPECT_NE(owner_of(dir / "ws").gid, system_group) << "the workspace kept the system group";
    handed->close();
}
