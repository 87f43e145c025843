// The client (ahctl) against a workspace the agent controls: the agent writes files the user's next
// command reads from the machine's side, often as root. Each test is one attack (docs/security.md,
// "The client"). Runs as root and, as AsUser.*, as nobody.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/host_process.hpp"
#include "support/proc_file.hpp"
#include "support/run_process.hpp"
#include "support/sanitizers.hpp"
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
    // Machine → sandbox: ./docs/notes.txt is a link to a machine secret; copying ./docs copies links as
    // links, and one leading out is skipped with a note: neither the secret nor the link arrives.
    ASSERT_EQ(sb.run("mkdir -p /workspace/docs && echo ok > /workspace/docs/readme && ln -s " + quote(victims / "secret") +
                     " /workspace/docs/notes.txt")
                  .exit_code,
              0);
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./docs sandbox:/tmp/docs-copy");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("skipped"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("leads out of the copied directory"), std::string::npos) << r.output;
    ProcessResult inside = sb.run("cat /tmp/docs-copy/docs/notes.txt 2>/dev/null; cat /tmp/docs-copy/docs/readme; "
                                  "test -L /tmp/docs-copy/docs/notes.txt && echo link-arrived");
    EXPECT_EQ(inside.output.find("machine secret"), std::string::npos) << inside.output;
    EXPECT_EQ(inside.output, "ok\n") << inside.output;
    // And one file named on the command line, a link out of its directory.
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./docs/notes.txt sandbox:/tmp/");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_EQ(sb.run("cat /tmp/notes.txt 2>/dev/null || true").output.find("machine secret"), std::string::npos);
    // The path named on the command line is itself the agent's link (in an idmapped workspace it is the
    // owner's on disk, so its owner proves nothing): as the destination, nothing is written through it;
    // as the source, nothing behind it is read.
    write_file(victims / "dir/private", "machine dir secret\n");
    ASSERT_EQ(sb.run("mkdir -p /tmp/job && echo '* * * * * root evil' > /tmp/job/evil && ln -s " + quote(victims / "dir") +
                     " /workspace/x")
                  .exit_code,
              0);
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp sandbox:/tmp/job/evil ./x");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("is a symbolic link"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(victims / "dir/evil")) << "the copy wrote through the named link";
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp sandbox:/tmp/job ./x/");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_FALSE(fs::exists(victims / "dir/job")) << "the copy wrote through the named link";
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./x sandbox:/tmp/x-copy");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_EQ(sb.run("cat /tmp/x-copy/x/private 2>/dev/null || true").output.find("machine dir secret"), std::string::npos);
    // A directory of the workspace that is a link, in the middle of the named path: the agent's link is
    // another user's on disk unless the workspace is idmapped; either way nothing lands behind it.
    ASSERT_EQ(sb.run("ln -s " + quote(victims.path()) + " /workspace/mid").exit_code, 0);
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp sandbox:/tmp/job/evil ./mid/dir");
    struct stat link_st{};
    ASSERT_EQ(::lstat((workspace / "mid").c_str(), &link_st), 0);
    if (link_st.st_uid != 0 && link_st.st_uid != ::geteuid()) {
        EXPECT_NE(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("who could point it anywhere"), std::string::npos) << r.output;
        EXPECT_FALSE(fs::exists(victims / "dir/evil"));
    }
    fs::remove(victims / "dir/evil");
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

namespace {

// ahctl with `args`, run as run_process would, with its peak resident memory (kB) from wait4.
struct MeasuredRun {
    int exit_code = -1;
    long max_rss_kib = 0;
    std::string output;
};
MeasuredRun ahctl_measured(const TempDir &home, const std::string &cwd, const std::vector<std::string> &args, double timeout_s = 300) {
    MeasuredRun m;
    const std::string log = home / "measured.log";
    const pid_t child = fork();
    if (child == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        if (chdir(cwd.c_str()) != 0) _exit(126);
        setenv("HOME", home.path().c_str(), 1);
        std::vector<std::string> full = {build_path("bin/ahctl"), "-q", "--state-dir", home.path() + "/state"};
        full.insert(full.end(), args.begin(), args.end());
        std::vector<char *> argv;
        for (auto &a : full) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    int status = 0;
    rusage usage{};
    while (wait4(child, &status, WNOHANG, &usage) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(child, SIGKILL);
            wait4(child, &status, 0, &usage);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    m.max_rss_kib = usage.ru_maxrss;
    m.output = read_file(log);
    return m;
}

}  // namespace

// 4. `ahctl cp` out of a sandbox of a 1 GiB sparse file: before, the client held the whole zip and every
// entry twice (for 2 GiB: 4.2 GB of RSS) and wrote the whole size to disk. Now it streams: its peak memory stays small, the
// file arrives with its logical size and sparse, and a limit below the size refuses it before anything
// is written.
TEST(ClientSurface, ACopyOutOfASandboxStreamsASparseFileWithBoundedMemory) {
    TempDir home("ahsec-home"), workspace("ahsec-ws"), out("ahsec-out");
    KeptSandbox sb(home, workspace.path());
    ASSERT_FALSE(sb.id.empty());
    ASSERT_EQ(sb.run("truncate -s 1G /workspace/big.sparse && echo tail >> /workspace/big.sparse").exit_code, 0);
    MeasuredRun small = ahctl_measured(home, out.path(), {"-s", sb.id, "cp", "--max-size", "512m", "sandbox:/workspace/big.sparse", "."});
    EXPECT_NE(small.exit_code, 0) << small.output;
    EXPECT_NE(small.output.find("nothing was"), std::string::npos) << small.output;
    EXPECT_FALSE(fs::exists(out / "big.sparse")) << "a refused copy wrote a file";
    MeasuredRun whole = ahctl_measured(home, out.path(), {"-s", sb.id, "cp", "sandbox:/workspace/big.sparse", "."});
    ASSERT_EQ(whole.exit_code, 0) << whole.output;
    struct stat st{};
    ASSERT_EQ(::stat((out / "big.sparse").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, (1ll << 30) + 5);
    EXPECT_LT(st.st_blocks * 512, 64ll << 20) << "the copy is not sparse on disk";
    char tail[8] = {};
    const int fd = ::open((out / "big.sparse").c_str(), O_RDONLY);
    EXPECT_EQ(::pread(fd, tail, 5, 1ll << 30), 5);
    ::close(fd);
    EXPECT_EQ(std::string(tail), "tail\n");
    // ASan's allocator keeps freed memory in a quarantine (up to 256 MB by design): the bound is on the
    // plain build; under ASan it only shows nothing grew with the file (1 GiB).
    const long bound_kib = (actionhost::testing::kAddressSanitizer ? 400 : 100) * 1024;
    EXPECT_LT(whole.max_rss_kib, bound_kib) << "ahctl peaked at " << whole.max_rss_kib << " KiB";
}

// 5. Copies never wait on a FIFO (or open a socket or a device), on either side: a FIFO and a link to it
// in a tree sent into the sandbox (the link goes as a link, never opened), a FIFO named on the command line, a FIFO at a name a copy out of the
// sandbox would write. Before, each of these blocked `ahctl cp` forever. Each is skipped and named.
TEST(ClientSurface, CopiesNeverWaitOnAFifo) {
    TempDir home("ahsec-home"), workspace("ahsec-ws");
    KeptSandbox sb(home, workspace.path());
    ASSERT_FALSE(sb.id.empty());
    fs::create_directories(workspace / "tree");
    write_file(workspace / "tree/real.txt", "real\n");
    ASSERT_EQ(::mkfifo((workspace / "tree/pipe").c_str(), 0600), 0);
    fs::create_symlink("pipe", workspace / "tree/to-pipe");
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./tree sandbox:/tmp/in", 60);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("skipped"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("a FIFO"), std::string::npos) << r.output;
    // The link to the FIFO is a link (copied as one, never opened); the FIFO itself is not there.
    EXPECT_EQ(sb.run("cat /tmp/in/tree/real.txt; ls /tmp/in/tree | wc -l; readlink /tmp/in/tree/to-pipe; "
                     "test -e /tmp/in/tree/pipe || echo no-fifo").output,
              "real\n2\npipe\nno-fifo\n");
    r = ahctl(home, workspace.path(), "-s " + sb.id + " cp ./tree/pipe sandbox:/tmp/", 60);
    EXPECT_FALSE(r.timed_out);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("a FIFO"), std::string::npos) << r.output;
    // Out of the sandbox onto a FIFO of the machine.
    ASSERT_EQ(sb.run("mkdir -p /tmp/out && echo data > /tmp/out/a.txt && echo b > /tmp/out/b.txt").exit_code, 0);
    TempDir dest("ahsec-dest");
    fs::create_directories(dest / "out");
    ASSERT_EQ(::mkfifo((dest / "out/a.txt").c_str(), 0600), 0);
    r = ahctl(home, dest.path(), "-s " + sb.id + " cp sandbox:/tmp/out .", 60);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("a FIFO"), std::string::npos) << r.output;
    struct stat st{};
    ASSERT_EQ(::lstat((dest / "out/a.txt").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
    EXPECT_EQ(read_file(dest / "out/b.txt"), "b\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
}

// 6. Names the agent chose, printed by ahctl: a file named with an OSC 52 sequence (which writes the
// user's clipboard), one clearing the screen, one with a newline (a forged line of the listing), and a
// microagent named so. Before, `git changes` and `microagents` printed them raw.
TEST(ClientSurface, NamesFromTheSandboxNeverDriveTheTerminal) {
    TempDir home("ahsec-home"), workspace("ahsec-ws");
    KeptSandbox sb(home, workspace.path());
    ASSERT_FALSE(sb.id.empty());
    ProcessResult made = sb.run(
        "cd /workspace && git init -q && touch \"$(printf 'clip\\033]52;c;aGVsbG8=\\007.txt')\" "
        "\"$(printf 'clear\\033[2J.txt')\" \"$(printf 'two\\nlines.txt')\" && "
        "mkdir -p .openhands/microagents && printf -- '---\\nname: \\033]0;title\\007agent\\n---\\nhi\\n' > .openhands/microagents/m.md");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    for (const char *command : {"git changes", "microagents"}) {
        ProcessResult r = ahctl(home, workspace.path(), "-s " + sb.id + " " + command);
        EXPECT_EQ(r.exit_code, 0) << command << ": " << r.output;
        EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << command << " printed an escape: " << r.output;
        EXPECT_EQ(r.output.find('\x07'), std::string::npos) << command;
    }
    ProcessResult changes = ahctl(home, workspace.path(), "-s " + sb.id + " git changes");
    EXPECT_NE(changes.output.find("two?lines.txt"), std::string::npos) << changes.output;
    EXPECT_NE(changes.output.find("clip?]52;c;aGVsbG8=?.txt"), std::string::npos) << changes.output;
}
