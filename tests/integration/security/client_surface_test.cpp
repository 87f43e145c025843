// The client (ahctl) against a workspace the agent controls: the agent writes files the user's next
// command reads from the machine's side, often as root. Each test is one attack (docs/security.md,
// "The client"). Runs as root and, as AsUser.*, as nobody.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/host_process.hpp"
#include "support/proc_file.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::build_path;
using actionhost::testing::ProcessResult;
using actionhost::testing::read_file;
using actionhost::testing::run_process;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
namespace fs = std::filesystem;

namespace {

std::string quote(const std::string &s) { return actionhost::testing::sh_word(s); }

// ahctl with `args` (shell words, already quoted), run from `cwd`, with a private HOME and state dir.
ProcessResult ahctl(const TempDir &home, const std::string &cwd, const std::string &args, double timeout_s = 120,
                    const std::string &extra_env = "") {
    const std::string cmd = "cd " + quote(cwd) + " && exec " + quote(build_path("bin/ahctl")) + " -q --state-dir " +
                            quote(home.path() + "/state") + " " + args;
    std::vector<std::string> env = {"HOME=" + home.path()};
    if (!extra_env.empty()) env.push_back(extra_env);
    return run_process({"sh", "-c", cmd}, timeout_s, env);
}

std::string last_line(std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text.substr(text.rfind('\n') + 1);
}

// A kept sandbox on `workspace`, stopped (or killed, if stop cannot) at the end of the test.
struct KeptSandbox {
    const TempDir &home;
    std::string id;
    KeptSandbox(const TempDir &h, const std::string &workspace, const std::string &extra_env = "") : home(h) {
        ProcessResult r = ahctl(home, workspace, "-r sandbox -w " + quote(workspace) + " start", 120, extra_env);
        if (r.exit_code == 0) id = last_line(r.output);
    }
    ~KeptSandbox() {
        if (id.empty()) return;
        if (ahctl(home, "/", "stop " + id, 20).exit_code == 0) return;
        // A sandbox whose host the test stopped: its ah-sandbox-init (ours) is killed by pid.
        for (const auto &e : fs::directory_iterator("/proc")) {
            const std::string name = e.path().filename();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::string cmdline = actionhost::testing::read_proc_file(e.path().string() + "/cmdline");
            if (cmdline.find("ah-sandbox-init") != std::string::npos && cmdline.find("ah-" + id) != std::string::npos)
                kill(std::stoi(name), SIGKILL);
        }
    }
    ProcessResult run(const std::string &command, const std::string &cwd = "/", double timeout_s = 60) {
        return ahctl(home, cwd, "-s " + id + " run -- " + quote(command), timeout_s);
    }
};

}  // namespace

// 1. A config.toml the agent writes into the workspace never steers the user's next start: ahctl finds
// ./config.toml by itself only when it is the user's own, private, and outside the workspace.
TEST(ClientSurface, AConfigFileInTheWorkspaceIsNotReadImplicitly) {
    TempDir home("ahsec-home"), project("ahsec-proj");
    // What the agent would write: the next start as the `local` runtime, i.e. on the machine itself.
    write_file(project / "config.toml", "[core]\nruntime = \"local\"\nworkspace_base = \"" + project.path() + "\"\n");
    ProcessResult r = ahctl(home, project.path(), "run -- 'echo ran'");
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("lies inside the workspace"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("ran"), std::string::npos) << r.output;
    // The same file with -w naming the directory it is in, without a workspace_base of its own.
    write_file(project / "config.toml", "[core]\nruntime = \"local\"\n");
    r = ahctl(home, project.path(), "-w . run -- 'echo ran'");
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_EQ(r.output.find("ran"), std::string::npos) << r.output;
    // Named with -c it is the user's choice, and read.
    write_file(project / "config.toml", "[core]\nruntime = \"sandbox\"\n");
    r = ahctl(home, project.path(), "-c config.toml -w . run -- 'echo ran'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ran"), std::string::npos) << r.output;
    // Outside any workspace but writable by others: refused too.
    TempDir elsewhere("ahsec-cfg");
    write_file(elsewhere / "config.toml", "[core]\nruntime = \"local\"\n");
    chmod((elsewhere / "config.toml").c_str(), 0666);
    r = ahctl(home, elsewhere.path(), "-r sandbox run -- 'echo ran'");
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("other users may write it"), std::string::npos) << r.output;
    if (geteuid() == 0) {  // another user's file: only root can make one here
        chmod((elsewhere / "config.toml").c_str(), 0644);
        ASSERT_EQ(chown((elsewhere / "config.toml").c_str(), 65534, 65534), 0);
        r = ahctl(home, elsewhere.path(), "-r sandbox run -- 'echo ran'");
        EXPECT_EQ(r.exit_code, 3) << r.output;
        EXPECT_NE(r.output.find("not to you"), std::string::npos) << r.output;
    }
}

// 2. `ahctl cp` in either direction never follows a link the agent planted in the workspace: not to
// write a file of the machine (sandbox → machine), not to read one into the sandbox (machine → sandbox).
TEST(ClientSurface, CopiesNeverFollowLinksPlantedInTheWorkspace) {
    TempDir home("ahsec-home"), workspace("ahsec-ws"), victims("ahsec-victims");
    fs::create_directories(victims / "dir");
    write_file(victims / "secret", "machine secret\n");
    chmod((victims / "secret").c_str(), 0600);
    KeptSandbox sb(home, workspace.path());
    ASSERT_FALSE(sb.id.empty());
    // Sandbox → machine: /tmp/report comes out as ./report, which the agent made a link to a machine directory.
    ProcessResult plant = sb.run("mkdir -p /tmp/report && echo planted > /tmp/report/summary.txt && ln -s " +
                                 quote(victims / "dir") + " /workspace/report");
    ASSERT_EQ(plant.exit_code, 0) << plant.output;
    ProcessResult r = ahctl(home, workspace.path(), "-s " + sb.id + " cp sandbox:/tmp/report .");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("symbolic link"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(victims / "dir/summary.txt")) << "the copy wrote through the agent's link";
    // A file link: the agent's notes.txt → a file of the machine.
    ASSERT_EQ(sb.run("mkdir -p /tmp/out && echo planted > /tmp/out/notes.txt && mkdir -p /workspace/out && ln -s " +
                     quote(victims / "target.txt") + " /workspace/out/notes.txt")
                  .exit_code,
              0);
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp sandbox:/tmp/out .");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_FALSE(fs::exists(victims / "target.txt")) << "the copy created a file through the agent's link";
    // Machine → sandbox: ./docs/notes.txt is a link to a machine secret; copying ./docs sends nothing.
    ASSERT_EQ(sb.run("mkdir -p /workspace/docs && echo ok > /workspace/docs/readme && ln -s " + quote(victims / "secret") +
                     " /workspace/docs/notes.txt")
                  .exit_code,
              0);
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./docs sandbox:/tmp/docs-copy");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("leads out of the copied directory"), std::string::npos) << r.output;
    ProcessResult inside = sb.run("cat /tmp/docs-copy/docs/notes.txt 2>/dev/null; ls /tmp/docs-copy 2>/dev/null | wc -l");
    EXPECT_EQ(inside.output.find("machine secret"), std::string::npos) << inside.output;
    // And one file named on the command line, a link out of its directory.
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./docs/notes.txt sandbox:/tmp/");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_EQ(sb.run("cat /tmp/notes.txt 2>/dev/null || true").output.find("machine secret"), std::string::npos);
    // Links that stay inside the copied tree are followed as before.
    ASSERT_EQ(sb.run("rm /workspace/docs/notes.txt && ln -s readme /workspace/docs/alias").exit_code, 0);
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./docs sandbox:/tmp/docs-ok");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(sb.run("cat /tmp/docs-ok/docs/alias").output.find("ok"), std::string::npos);
}

// 3. A host the agent stops cannot hang the user's ahctl: every request over the sandbox's unix socket
// times out. The agent runs as the host's own user here (root inside with run_as_openhands = false for a
// root caller; a non-root caller's host is the agent's user anyway), so it may stop the host.
TEST(ClientSurface, AStoppedHostDoesNotHangTheClient) {
    TempDir home("ahsec-home"), workspace("ahsec-ws");
    KeptSandbox sb(home, workspace.path(), "RUN_AS_OPENHANDS=false");
    ASSERT_FALSE(sb.id.empty());
    auto t0 = std::chrono::steady_clock::now();
    // SIGSTOP stops a threaded process only once one of its threads has run to take the signal: on a busy
    // machine the host could still read the prompt that follows `kill` and answer. The sleep keeps the
    // prompt back until the host is surely stopped, and is longer than the action's 3 s timeout, so an
    // answer from a host that did not stop would be the host's timeout, not the client's.
    ProcessResult r =
        ahctl(home, "/", "-s " + sb.id + " -t 3 run -- 'kill -STOP $(pgrep -x actionhost); sleep 30'", 120);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_FALSE(r.timed_out) << r.output;
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("failed to return execute_action"), std::string::npos) << r.output;
    EXPECT_LT(took, 60) << "the action's reply never came and ahctl waited " << took << " s";
    t0 = std::chrono::steady_clock::now();
    r = ahctl(home, "/", "-s " + sb.id + " run -- true", 120);
    took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_FALSE(r.timed_out) << r.output;
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_LT(took, 60) << "reattaching to a stopped host took " << took << " s";
}
