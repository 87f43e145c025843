// The audit trail of the `sandbox` backend (docs/security.md, "The audit trail"), end to end with a
// real sandbox: every action is in the trail outside with who sent it, the policy's decision and its
// outcome, and the chain verifies. The agent, as root inside, tries to delete, truncate, rewrite and
// reorder the trail (its path does not exist inside) and to forge entries through the host's channel
// (its /proc/<host>/fd links, pidfd_getfd, ptrace, /proc/<host>/mem): every attempt fails and nothing
// forged appears. Tampering with the files outside is caught by `ahctl log --verify` (exit 1, naming the
// entry). A host killed mid-action leaves that action's start without an end, and the chain holds.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <actionhost/client/audit_log.hpp>
#include <actionhost/common/json_write.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime_harness.hpp"
#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using namespace runtimes_test;
using actionhost::client::AuditLogEntry;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string trail_of(const StartedRuntime &s) {
    return actionhost::client::audit_log_dir(s.state->path(), s.runtime->session_id());
}

std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream out;
    out << in.rdbuf();
    return out.str();
}

// `ahctl --state-dir STATE log SID ARGS`: exit code and output.
actionhost::testing::ProcessResult ahctl_log(const std::string &state, const std::string &sid, const std::string &args) {
    return actionhost::testing::run_process(
        {"/bin/bash", "-c", actionhost::testing::sh_word(actionhost::testing::build_path("bin/ahctl")) + " --state-dir " +
                                actionhost::testing::sh_word(state) + " log " + sid + " " + args + " 2>&1"},
        60);
}

// The "started" records whose arguments' command is `command`.
std::vector<json> started_with(const std::vector<AuditLogEntry> &entries, const std::string &command) {
    std::vector<json> out;
    for (const auto &e : entries)
        if (e.kind == "action" && e.record.value("event", "") == "started" && e.record["args"].value("command", "") == command)
            out.push_back(e.record);
    return out;
}

const json *finished_of(const std::vector<AuditLogEntry> &entries, const json &started) {
    for (const auto &e : entries)
        if (e.kind == "action" && e.record.value("event", "") == "finished" && e.record["id"] == started["id"]) return &e.record;
    return nullptr;
}

// The trail once the action that ran `last_command` has finished in it: the supervisor appends as
// records arrive, which may be just after the client got its answer (at most 5 s).
std::vector<AuditLogEntry> settled_trail(const std::string &dir, const std::string &last_command) {
    std::vector<AuditLogEntry> entries;
    for (int i = 0; i < 50; ++i) {
        entries = actionhost::client::read_audit_log(dir);
        const auto last = started_with(entries, last_command);
        if (!last.empty() && finished_of(entries, last.back()) != nullptr) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return entries;
}

}  // namespace

TEST(SandboxAudit, EveryActionIsInTheTrailWithWhoAndOutcomeAndTheChainVerifies) {
    auto s = start_runtime("sandbox");
    ASSERT_EQ(exit_code(run(*s->runtime, "echo hi")), 0);
    ASSERT_EQ(exit_code(run(*s->runtime, "false")), 1);
    const std::string dir = trail_of(*s);
    const auto entries = settled_trail(dir, "false");
    ASSERT_FALSE(entries.empty());
    EXPECT_EQ(entries.front().kind, "sandbox");
    EXPECT_EQ(entries.front().record["event"], "sandbox_started");
    const auto hi = started_with(entries, "echo hi");
    ASSERT_EQ(hi.size(), 1u);
    EXPECT_EQ(hi[0]["action"], "run");
    EXPECT_EQ(hi[0]["caller"]["key"].get<std::string>().size(), 16u);  // a fingerprint, never the key
    EXPECT_FALSE(hi[0]["caller"]["peer"].get<std::string>().empty());
    const json *hi_end = finished_of(entries, hi[0]);
    ASSERT_NE(hi_end, nullptr);
    EXPECT_EQ((*hi_end)["policy"]["decision"], "allow");
    EXPECT_EQ((*hi_end)["policy"]["rule"], "no policy");
    EXPECT_EQ((*hi_end)["exit_code"], 0);
    EXPECT_EQ((*hi_end)["http_status"], 200);
    EXPECT_GT((*hi_end)["bytes"].get<size_t>(), 0u);
    const auto no = started_with(entries, "false");
    ASSERT_EQ(no.size(), 1u);
    ASSERT_NE(finished_of(entries, no[0]), nullptr);
    EXPECT_EQ((*finished_of(entries, no[0]))["exit_code"], 1);
    const auto v = actionhost::client::verify_audit_log(dir);
    EXPECT_TRUE(v.ok) << v.problem;
    const auto cli = ahctl_log(s->state->path(), s->runtime->session_id(), "--verify");
    EXPECT_EQ(cli.exit_code, 0) << cli.output;
    EXPECT_NE(cli.output.find("ok: "), std::string::npos) << cli.output;
    const auto listed = ahctl_log(s->state->path(), s->runtime->session_id(), "");
    EXPECT_NE(listed.output.find("command=echo hi"), std::string::npos) << listed.output;
}

TEST(SandboxAudit, RootInsideCannotReachTheTrailNorForgeEntriesThroughTheHostsChannel) {
    auto s = start_runtime("sandbox");
    const std::string dir = trail_of(*s);
    ASSERT_EQ(exit_code(run(*s->runtime, "id -u")), 0);
    const std::string before = slurp(dir + "/000001.log");
    ASSERT_FALSE(before.empty());
    // Delete, truncate, rewrite, reorder: the trail's path (and the state directory's) is not there.
    const std::string tamper = "D=" + actionhost::testing::sh_word(dir) + "; n=0; "
        "rm -rf \"$D\" 2>/dev/null && [ ! -e \"$D\" ] && [ -e \"$D/000001.log\" ] && n=$((n+1)); "
        "truncate -s 0 \"$D/000001.log\" 2>/dev/null && n=$((n+1)); "
        "echo '{}' > \"$D/head\" 2>/dev/null && n=$((n+1)); "
        "mv \"$D/000001.log\" \"$D/000002.log\" 2>/dev/null && n=$((n+1)); "
        "[ -e \"$D\" ] && n=$((n+1)); "
        "[ -z \"$(find / -xdev -name head -path '*audit*' 2>/dev/null | head -1)\" ] || n=$((n+1)); "
        "echo done=$n";
    auto r = run(*s->runtime, tamper);
    EXPECT_NE(r["content"].get<std::string>().find("done=0"), std::string::npos) << r["content"];
    // Forge: write a record into every descriptor of the host, take its descriptors with pidfd_getfd,
    // trace it, read its memory. The host is non-dumpable and nothing inside has CAP_SYS_PTRACE.
    const std::string forge =
        "H=$(pgrep -o -x actionhost); ok=0; for f in /proc/$H/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] || continue; "
        "( printf '{\"event\":\"started\",\"action\":\"forged\"}' > $f ) 2>/dev/null && ok=$((ok+1)); done; echo wrote=$ok; "
        "python3 - $H <<'PY'\n"
        "import ctypes, os, sys\n"
        "h = int(sys.argv[1]); libc = ctypes.CDLL(None, use_errno=True); pfd = os.pidfd_open(h)\n"
        "print('getfd=%d' % sum(1 for fd in range(3, 64) if libc.syscall(438, pfd, fd, 0) >= 0))\n"
        "print('ptrace=%d' % (libc.syscall(101, 16, h, 0, 0) == 0))\n"
        "try:\n    open('/proc/%d/mem' % h, 'rb'); print('mem=1')\nexcept OSError:\n    print('mem=0')\n"
        "PY";
    r = run(*s->runtime, forge);
    const std::string out = r["content"].get<std::string>();
    EXPECT_NE(out.find("wrote=0"), std::string::npos) << out;
    EXPECT_NE(out.find("getfd=0"), std::string::npos) << out;
    EXPECT_NE(out.find("ptrace=0"), std::string::npos) << out;
    EXPECT_NE(out.find("mem=0"), std::string::npos) << out;
    ASSERT_EQ(exit_code(run(*s->runtime, "echo after")), 0);
    const auto entries = settled_trail(dir, "echo after");
    for (const auto &e : entries) {
        EXPECT_NE(e.kind, "rejected") << e.to_json();
        EXPECT_NE(e.record.value("action", json()), json("forged")) << e.to_json();
    }
    EXPECT_EQ(slurp(dir + "/000001.log").substr(0, before.size()), before);  // only appended to
    const auto v = actionhost::client::verify_audit_log(dir);
    EXPECT_TRUE(v.ok) << v.problem;
}

TEST(SandboxAudit, TamperingWithTheFilesOutsideIsCaughtByVerify) {
    auto s = start_runtime("sandbox");
    for (const char *c : {"echo one", "echo two", "echo three"}) ASSERT_EQ(exit_code(run(*s->runtime, c)), 0);
    const std::string dir = trail_of(*s), sid = s->runtime->session_id(), state = s->state->path();
    s->runtime.reset();  // the sandbox ends: its supervisor's last entry is written
    const std::string segment = dir + "/000001.log", original = slurp(segment);
    ASSERT_EQ(ahctl_log(state, sid, "--verify").exit_code, 0);
    auto write = [&](const std::string &text) { std::ofstream(segment, std::ios::binary | std::ios::trunc) << text; };
    auto lines = [&] {
        std::vector<std::string> out;
        std::istringstream in(original);
        for (std::string l; std::getline(in, l);) out.push_back(l + "\n");
        return out;
    };
    // Rewrite one byte of an entry (the second "echo two" → "echo twx").
    std::string edited = original;
    edited[edited.find("echo two") + 7] = 'x';
    write(edited);
    auto r = ahctl_log(state, sid, "--verify");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("000001.log line"), std::string::npos) << r.output;
    // Reorder two entries.
    auto l = lines();
    std::swap(l[2], l[3]);
    std::string swapped;
    for (const auto &x : l) swapped += x;
    write(swapped);
    EXPECT_EQ(ahctl_log(state, sid, "--verify").exit_code, 1);
    // Delete one entry.
    l = lines();
    l.erase(l.begin() + 2);
    std::string removed;
    for (const auto &x : l) removed += x;
    write(removed);
    EXPECT_EQ(ahctl_log(state, sid, "--verify").exit_code, 1);
    // Cut the tail.
    l = lines();
    l.pop_back();
    std::string cut;
    for (const auto &x : l) cut += x;
    write(cut);
    r = ahctl_log(state, sid, "--verify");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("cut from the end"), std::string::npos) << r.output;
    // Truncate to nothing.
    write("");
    EXPECT_EQ(ahctl_log(state, sid, "--verify").exit_code, 1);
    write(original);
    EXPECT_EQ(ahctl_log(state, sid, "--verify").exit_code, 0);
}

TEST(SandboxAudit, AHostKilledMidActionLeavesItsStartWithoutAnEndAndTheChainHolds) {
    auto s = start_runtime("sandbox");
    ASSERT_EQ(exit_code(run(*s->runtime, "echo alive")), 0);
    const std::string dir = trail_of(*s);
    const std::string kill = "kill -9 $(pgrep -o -x actionhost)";  // the host this test's sandbox runs
    try {
        run(*s->runtime, kill, 10);
    } catch (const std::exception &) {
        // the host died under its own request: expected
    }
    bool closed = false;
    for (int i = 0; i < 100 && !closed; ++i) {
        for (const auto &e : actionhost::client::read_audit_log(dir))
            closed = closed || (e.kind == "sandbox" && e.record.value("event", "") == "host_channel_closed");
        if (!closed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(closed);
    const auto entries = actionhost::client::read_audit_log(dir);
    const auto killed = started_with(entries, kill);
    ASSERT_EQ(killed.size(), 1u);
    EXPECT_EQ(finished_of(entries, killed[0]), nullptr);  // started, never finished: the crash shows
    const auto v = actionhost::client::verify_audit_log(dir);
    EXPECT_TRUE(v.ok) << v.problem;
}

// The policy stage's decisions are in the trail: a denied command's record names the rule that denied it
// and says it did not run (no exit code); an allowed one says which module allowed it.
TEST(SandboxAudit, PolicyDecisionsAreInTheTrail) {
    auto s = start_runtime("sandbox", [](actionhost::client::Config &c) {
        c.set("security.deny_commands", json::array({"^touch /tmp/audited-denial"}));
    });
    const json denied = run(*s->runtime, "touch /tmp/audited-denial");
    ASSERT_NE(actionhost::common::dump_json(denied).find("denied by policy"), std::string::npos) << actionhost::common::dump_json(denied);
    ASSERT_EQ(exit_code(run(*s->runtime, "echo allowed")), 0);
    const auto entries = settled_trail(trail_of(*s), "echo allowed");
    const auto no = started_with(entries, "touch /tmp/audited-denial");
    ASSERT_EQ(no.size(), 1u);
    const json *no_end = finished_of(entries, no[0]);
    ASSERT_NE(no_end, nullptr);
    EXPECT_EQ((*no_end)["policy"]["decision"], "deny") << actionhost::common::dump_json(*no_end);
    EXPECT_EQ((*no_end)["policy"]["rule"].get<std::string>().rfind("deny_commands[0]", 0), 0u) << actionhost::common::dump_json(*no_end);
    EXPECT_EQ((*no_end)["observation"], "error");
    EXPECT_FALSE(no_end->contains("exit_code"));
    const auto yes = started_with(entries, "echo allowed");
    ASSERT_EQ(yes.size(), 1u);
    const json *yes_end = finished_of(entries, yes[0]);
    ASSERT_NE(yes_end, nullptr);
    EXPECT_EQ((*yes_end)["policy"]["decision"], "allow") << actionhost::common::dump_json(*yes_end);
    EXPECT_EQ(ahctl_log(s->state->path(), s->runtime->session_id(), "--verify").exit_code, 0);
}

// What an action changed is in its "finished" record when its arguments name it (write; the editor's
// create, str_replace, insert, undo_edit): resolved from the working directory, and left out when the
// action failed or only looked (view). Uploads and downloads, which are not actions, each have a record
// with the path, the answer and who asked.
TEST(SandboxAudit, FilesChangedAndTransfersAreInTheTrail) {
    auto s = start_runtime("sandbox");
    const std::string ws = s->runtime->workspace_dir();
    auto act = [&](const json &action) { return s->runtime->execute(action); };
    EXPECT_NE(act({{"action", "write"}, {"args", {{"path", "notes/a.txt"}, {"content", "one\n"}}}}).value("observation", ""), "error");
    EXPECT_NE(act({{"action", "edit"}, {"args", {{"path", ws + "/notes/a.txt"}, {"command", "str_replace"}, {"old_str", "one"}, {"new_str", "two"}}}})
                  .value("observation", ""),
              "error");
    act({{"action", "edit"}, {"args", {{"path", ws + "/notes/a.txt"}, {"command", "view"}}}});
    EXPECT_EQ(act({{"action", "write"}, {"args", {{"path", "/proc/version"}, {"content", "x"}}}}).value("observation", ""), "error");
    s->runtime->wire().upload_bytes("up.txt", "uploaded\n", ws);
    const std::string zip = s->runtime->wire().download(ws + "/notes");
    ASSERT_FALSE(zip.empty());
    ASSERT_EQ(exit_code(run(*s->runtime, "echo done")), 0);
    const auto entries = settled_trail(trail_of(*s), "echo done");

    std::vector<json> finished_files;
    json upload, download;
    for (const auto &e : entries) {
        if (e.kind != "action") continue;
        const std::string event = e.record.value("event", "");
        if (event == "finished" && e.record.contains("files")) finished_files.push_back(e.record["files"]);
        if (event == "upload") upload = e.record;
        if (event == "download") download = e.record;
    }
    // The write (relative, resolved), the str_replace; not the view, not the refused write.
    ASSERT_EQ(finished_files.size(), 2u) << finished_files.size();
    EXPECT_EQ(finished_files[0], json::array({ws + "/notes/a.txt"}));
    EXPECT_EQ(finished_files[1], json::array({ws + "/notes/a.txt"}));
    ASSERT_TRUE(upload.is_object()) << "no upload record: " << ahctl_log(s->state->path(), s->runtime->session_id(), "").output;
    EXPECT_EQ(upload["destination"], ws);
    EXPECT_EQ(upload["http_status"], 200);
    EXPECT_EQ(upload["caller"]["key"].get<std::string>().size(), 16u);
    ASSERT_TRUE(download.is_object()) << "no download record";
    EXPECT_EQ(download["path"], ws + "/notes");
    EXPECT_EQ(download["http_status"], 200);
    const auto v = actionhost::client::verify_audit_log(trail_of(*s));
    EXPECT_TRUE(v.ok) << v.problem;
    const auto listed = ahctl_log(s->state->path(), s->runtime->session_id(), "");
    EXPECT_NE(listed.output.find("changed [\"" + ws + "/notes/a.txt\"]"), std::string::npos) << listed.output;
    EXPECT_NE(listed.output.find("upload #"), std::string::npos) << listed.output;
    EXPECT_NE(listed.output.find("download #"), std::string::npos) << listed.output;
}

// The trail outlives its client: `ahctl run` killed (SIGKILL) mid-command ends its sandbox, and the trail
// in the state directory holds the command's start, the sandbox's end, and verifies.
TEST(SandboxAudit, TheTrailSurvivesAClientKilledMidCommand) {
    actionhost::testing::TempDir state("ahauditstate");
    const std::string cmd = "exec " + actionhost::testing::sh_word(actionhost::testing::build_path("bin/ahctl")) + " --state-dir " +
                            actionhost::testing::sh_word(state.path()) + " -q -r sandbox run -- 'echo started; sleep 60'";
    actionhost::testing::write_file(state / "client.sh", cmd + "\n");
    const pid_t client = ::fork();
    ASSERT_GE(client, 0);
    if (client == 0) {
        ::execl("/bin/bash", "bash", (state / "client.sh").c_str(), static_cast<char *>(nullptr));
        ::_exit(127);
    }
    struct Reaper {  // a failed assertion still ends the client this test started
        pid_t pid;
        ~Reaper() {
            if (pid > 0 && ::kill(pid, SIGKILL) == 0) ::waitpid(pid, nullptr, 0);
        }
    } reaper{client};
    // The command has started once its record is in the trail.
    std::string dir;
    std::vector<AuditLogEntry> entries;
    for (int i = 0; i < 200 && started_with(entries, "echo started; sleep 60").empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::error_code ec;
        if (dir.empty() && fs::is_directory(state / "audit", ec))
            for (const auto &d : fs::directory_iterator(state / "audit", ec)) dir = d.path().string();
        if (!dir.empty()) entries = actionhost::client::read_audit_log(dir);
    }
    ASSERT_FALSE(started_with(entries, "echo started; sleep 60").empty()) << "the command never started";
    ASSERT_EQ(::kill(client, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(client, &status, 0), client);
    reaper.pid = -1;
    bool ended = false;
    for (int i = 0; i < 100 && !ended; ++i) {
        for (const auto &e : actionhost::client::read_audit_log(dir))
            ended = ended || (e.kind == "sandbox" && e.record.value("event", "") == "sandbox_ended");
        if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(ended) << "the sandbox of a killed client did not end (or did not say so)";
    entries = actionhost::client::read_audit_log(dir);
    const auto sleeping = started_with(entries, "echo started; sleep 60");
    ASSERT_EQ(sleeping.size(), 1u);
    const auto v = actionhost::client::verify_audit_log(dir);
    EXPECT_TRUE(v.ok) << v.problem;
    const auto cli = ahctl_log(state.path(), fs::path(dir).filename().string(), "--verify");
    EXPECT_EQ(cli.exit_code, 0) << cli.output;
}
