// The `cli` runtime: the host core served inside this test process (no server, no port), with the
// differences of OpenHands' CLIRuntime asserted by their exact texts, and bash, edit, read, write and
// run_ipython through it. The shared conformance set runs on it in conformance_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/socket_holders.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json input_action(const std::string &text) {
    return {{"action", "run"}, {"args", {{"command", text}, {"is_input", true}}}, {"timeout", 10.0}};
}

// Inodes of this process's listening TCP sockets (IPv4 and IPv6).
std::set<std::string> listening_socket_inodes() {
    std::set<std::string> own;
    for (const auto &e : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        own.insert(fs::read_symlink(e.path(), ec).string());
    }
    std::set<std::string> out;
    for (const auto &l : actionhost::testing::listening_sockets())
        if (own.count(l.inode)) out.insert(l.inode);
    return out;
}

}  // namespace

TEST(CliRuntime, ServesInProcessWithoutListening) {
    const auto before = listening_socket_inodes();
    auto s = start_runtime("cli");
    EXPECT_EQ(s->runtime->url().rfind("inproc://cli-", 0), 0u) << s->runtime->url();
    EXPECT_EQ(run(*s->runtime, "echo in-process").value("content", ""), "in-process");
    EXPECT_EQ(listening_socket_inodes(), before) << "the cli runtime opened a listening socket";
    // The host API answers as a host process would, e.g. /server_info and an unknown path.
    json info = s->runtime->wire().server_info();
    EXPECT_TRUE(info.contains("uptime")) << info.dump();
    s->runtime->close();
    EXPECT_EQ(s->runtime->last_status(), "STATUS$STOPPED");
    EXPECT_THROW(run(*s->runtime, "echo after close"), std::exception);
}

TEST(CliRuntime, InteractiveInputIsRefusedWithCliRuntimesText) {
    auto s = start_runtime("cli");
    for (const std::string text : {"C-c", "yes"}) {
        json obs = s->runtime->execute(input_action(text));
        EXPECT_EQ(obs.value("observation", ""), "error") << obs.dump();
        EXPECT_EQ(obs.value("content", ""),
                  "CLIRuntime does not support interactive input from the agent (e.g., 'C-c'). The command '" + text +
                      "' was not sent to any process.");
        EXPECT_EQ(obs["extras"].value("error_id", ""), "AGENT_ERROR$BAD_ACTION") << obs.dump();
    }
}

TEST(CliRuntime, TimeoutKillsTheProcessGroupWithCliRuntimesSuffix) {
    auto s = start_runtime("cli");
    const std::string pid_file = s->workspace_inside + "/bg.pid";
    // A background child in the same group, and output before the timeout.
    json obs = run(*s->runtime, "sleep 300 & echo $! > " + pid_file + "; echo started; sleep 300", 1.5);
    EXPECT_EQ(obs.value("observation", ""), "run") << obs.dump();
    EXPECT_EQ(obs.value("content", ""), "started") << obs.dump();
    EXPECT_EQ(exit_code(obs), -1);
    EXPECT_EQ(obs["extras"]["metadata"].value("suffix", ""), "\n[The command timed out after 1.5 seconds.]");
    std::ifstream in(s->workspace->path() + "/bg.pid");
    int pid = 0;
    in >> pid;
    ASSERT_GT(pid, 0);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {  // killed with its group; give the kernel time to reap
        gone = kill(pid, 0) != 0;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(gone) << "background process " << pid << " survived the timeout";
    // The next command runs normally.
    EXPECT_EQ(run(*s->runtime, "echo next").value("content", ""), "next");
    // A whole-number timeout prints one decimal, as CLIRuntime's {:.1f}.
    json two = run(*s->runtime, "sleep 30", 1);
    EXPECT_EQ(two["extras"]["metadata"].value("suffix", ""), "\n[The command timed out after 1.0 seconds.]");
}

TEST(CliRuntime, NewlineSeparatedCommandsRunAndStatePersists) {
    auto s = start_runtime("cli");
    // Rejected by the persistent bash session (Cannot execute multiple commands at once); allowed here.
    json obs = run(*s->runtime, "echo one\necho two\nexit 4");
    EXPECT_EQ(obs.value("content", ""), "one\ntwo") << obs.dump();
    EXPECT_EQ(exit_code(obs), 4);
    // cd and exported variables carry over to the next command; plain shell variables do not.
    EXPECT_EQ(exit_code(run(*s->runtime, "mkdir -p d && cd d && export AH_CLI_V='a \"q\" $x'; LOCAL_ONLY=1")), 0);
    EXPECT_EQ(run(*s->runtime, "pwd; echo \"$AH_CLI_V\"; echo \"[${LOCAL_ONLY:-}]\"").value("content", ""),
              s->workspace_inside + "/d\na \"q\" $x\n[]");
    // A command's exit status and stderr are kept.
    json err = run(*s->runtime, "echo oops >&2; false");
    EXPECT_EQ(err.value("content", ""), "oops");
    EXPECT_EQ(exit_code(err), 1);
}

TEST(CliRuntime, WriteReadEditThroughTheSessionDirectory) {
    auto s = start_runtime("cli");
    auto &rt = *s->runtime;
    ASSERT_EQ(exit_code(run(rt, "mkdir -p src && cd src")), 0);
    // Relative paths resolve against the shell's directory, as on every runtime.
    json w = rt.execute({{"action", "write"}, {"args", {{"path", "rel.txt"}, {"content", "x"}}}});
    EXPECT_EQ(w.value("observation", ""), "write") << w.dump();
    EXPECT_EQ(actionhost::testing::read_file(s->workspace->path() + "/src/rel.txt"), "x\n");
    std::string path = s->workspace_inside + "/src/m.py";
    json created = rt.execute({{"action", "edit"},
                               {"args", {{"command", "create"}, {"path", path}, {"file_text", "a = 1\n"}, {"impl_source", "oh_aci"}}}});
    EXPECT_EQ(created.value("observation", ""), "edit") << created.dump();
    json ins = rt.execute({{"action", "edit"},
                           {"args", {{"command", "insert"}, {"path", path}, {"insert_line", 1}, {"new_str", "b = 2"}, {"impl_source", "oh_aci"}}}});
    EXPECT_EQ(ins.value("observation", ""), "edit") << ins.dump();
    json r = rt.execute({{"action", "read"}, {"args", {{"path", path}}}});
    EXPECT_EQ(r.value("content", ""), "a = 1\nb = 2\n") << r.dump();
    EXPECT_EQ(run(rt, "python3 m.py && echo ran").value("content", ""), "ran");
}

TEST(CliRuntime, RunIpythonThroughTheJupyterPlugin) {
    if (!fs::exists(actionhost::testing::build_path("lib/actionhost/plugins/jupyter/manifest.json")))
        GTEST_SKIP() << "the jupyter plugin is not built in this configuration";
    auto s = start_runtime("cli");
    auto &rt = *s->runtime;
    ASSERT_EQ(exit_code(run(rt, "mkdir -p nb && cd nb")), 0);
    json action = {{"action", "run_ipython"}, {"args", {{"code", "import os\nprint(6 * 7, os.getcwd())"}}}, {"timeout", 120.0}};
    json obs = rt.execute(action);
    EXPECT_EQ(obs.value("observation", ""), "run_ipython") << obs.dump();
    // The kernel follows the shell's directory.
    EXPECT_NE(obs.value("content", "").find("42 " + s->workspace_inside + "/nb"), std::string::npos) << obs.dump();
    json again = rt.execute({{"action", "run_ipython"}, {"args", {{"code", "x = 5\nx * 2"}}}, {"timeout", 60.0}});
    EXPECT_NE(again.value("content", "").find("10"), std::string::npos) << again.dump();
}

TEST(CliRuntime, KeepRuntimeAliveIsRefusedClearly) {
    try {
        auto s = start_runtime("cli", [](actionhost::client::Config &c) { c.set("sandbox.keep_runtime_alive", true); });
        FAIL() << "connect succeeded";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("keep_runtime_alive cannot be honoured"), std::string::npos) << e.what();
    }
}
