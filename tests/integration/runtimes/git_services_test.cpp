// Git through real backends (OpenHands' runtime/base.py): user config from [core], the --no-pager alias,
// clone of local bare repositories (file:// URLs made here with real git) at a branch or on a new
// workspace branch, init, the change list and per-file diffs, microagents; and a provider token used
// for its host through a fake GitHub (git's dumb HTTP protocol behind Basic auth on 127.0.0.1) without
// landing in any command, observation, history, log or config.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/git_workspace.hpp>
#include <actionhost/client/microagents.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "services_harness.hpp"
#include "support/temp_dir.hpp"

using namespace services_test;
using namespace actionhost::client;
using actionhost::testing::read_file;
using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using nlohmann::json;
namespace fs = std::filesystem;

extern char **environ;

namespace {

std::string q(const std::string &s) { return "'" + s + "'"; }

// A bare repository with branches main and dev, a microagents folder, and files whose names need care.
struct Upstream {
    TempDir dir{"ahsvc-upstream"};
    std::string bare;
    Upstream() {
        std::string src = dir / "src";
        bare = dir / "repo.git";
        sh("set -e; git init -q -b main " + q(src) + "; cd " + q(src) +
           "; mkdir -p .openhands/microagents/knowledge; printf 'hello\\n' > a.txt; printf 'space\\n' > 'with space.txt';"
           " printf -- '---\\nname: repo_rules\\ntype: repo\\n---\\nAlways run the tests.\\n' > .openhands/microagents/repo.md;"
           " printf 'Know this.\\n' > .openhands/microagents/knowledge/k8s.md; printf 'not an agent\\n' > .openhands/microagents/README.md;"
           " git add -A; git -c user.name=t -c user.email=t@e commit -qm init; git checkout -q -b dev; printf 'dev\\n' > dev.txt;"
           " git add dev.txt; git -c user.name=t -c user.email=t@e commit -qm dev; git checkout -q main;"
           " git clone -q --bare . " + q(bare) + "; git -C " + q(bare) + " update-server-info");
    }
};

class Git : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Git, UserConfigAndNoPagerAlias) {
    auto s = start(GetParam(), [](RuntimeOptions &o) { o.config.set("core.git_user_email", "o'brien@example.com"); });
    auto &rt = *s->runtime;
    EXPECT_EQ(content(run(rt, "git config --global user.name")), "openhands");       // OpenHands' default
    EXPECT_EQ(content(run(rt, "git config --global user.email")), "o'brien@example.com");
    EXPECT_EQ(content(run(rt, "alias git")), "alias git='git --no-pager'");
}

// A fresh sandbox gets its global config written without running git (the fast path of
// configure_git_user): git must still read back every byte of hostile values.
TEST_P(Git, UserConfigValuesNeedingGitQuotingReadBackExactly) {
    const std::string name = "Ann \"Q\" O'Neil \\ #1; x\ty $(id) `id` \xc3\xa9";
    const std::string email = "  lead;ing@example.com # not a comment ";
    auto s = start(GetParam(), [&](RuntimeOptions &o) {
        o.config.set("core.git_user_name", name);
        o.config.set("core.git_user_email", email);
    });
    auto &rt = *s->runtime;
    EXPECT_EQ(base64_decode(content(run(rt, "git config --global user.name | base64 -w0"))), name + "\n");
    EXPECT_EQ(base64_decode(content(run(rt, "git config --global user.email | base64 -w0"))), email + "\n");
    // git itself can go on editing the file it did not write.
    EXPECT_EQ(exit_code(run(rt, "git config --global core.pager cat && git config --global user.name")), 0);
}

// An existing global config (here GIT_CONFIG_GLOBAL, set for the sandbox) is edited by git, not replaced.
TEST_P(Git, UserConfigIsAddedToAnExistingGlobalConfig) {
    auto s = start(GetParam(), [&](RuntimeOptions &o) {
        std::string ws = o.config.get_string("core.workspace_base");
        write_file(ws + "/gitconfig", "[core]\n\tautocrlf = input\n");
        o.sandbox_env["GIT_CONFIG_GLOBAL"] = std::string(GetParam() == "local" ? ws : "/workspace") + "/gitconfig";
    });
    auto &rt = *s->runtime;
    EXPECT_EQ(content(run(rt, "git config --global core.autocrlf")), "input");
    EXPECT_EQ(content(run(rt, "git config --global user.name")), "openhands");
    std::string file = read_file(s->workspace->path() + "/gitconfig");
    EXPECT_NE(file.find("autocrlf = input"), std::string::npos) << file;
    EXPECT_NE(file.find("email = openhands@all-hands.dev"), std::string::npos) << file;
}

namespace {
// An mtime no write of today can give a file.
constexpr time_t kLongAgo = 1000000000;

void make_old(const std::string &path) {
    const struct timespec times[2] = {{kLongAgo, 0}, {kLongAgo, 0}};
    ::utimensat(AT_FDCWD, path.c_str(), times, 0);
}

time_t mtime_of(const std::string &path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_mtim.tv_sec : 0;
}
}  // namespace

// A later start in the same home (local runtimes, warm pools) finds the [user] section the first one
// wrote: the file is left alone (git would have written a new one); a different one is edited by git.
TEST(GitLocalHome, UserConfigAlreadyInPlaceIsLeftAloneAndADifferentOneIsEdited) {
    std::string home, written;
    {
        auto first = start("local", [&](RuntimeOptions &o) { home = o.env["HOME"]; });
        written = read_file(home + "/.gitconfig");  // as the first start wrote it, without git
        first->runtime->close();
    }
    ASSERT_NE(written.find("[user]"), std::string::npos) << written;

    auto s = start("local", [&](RuntimeOptions &o) {
        home = o.env["HOME"];
        write_file(home + "/.gitconfig", written);
        make_old(home + "/.gitconfig");
    });
    EXPECT_EQ(read_file(home + "/.gitconfig"), written);
    EXPECT_EQ(mtime_of(home + "/.gitconfig"), kLongAgo) << "the file was rewritten";
    EXPECT_EQ(content(run(*s->runtime, "echo \"[${__ah_gitconfig+set}]\"")), "[]");  // nothing left set in the shell
    EXPECT_EQ(content(run(*s->runtime, "git config --global user.email")), "openhands@all-hands.dev");
    s->runtime->close();

    const std::string theirs = "[user]\n\tname = someone\n\temail = someone@example.com\n[core]\n\tautocrlf = input\n";
    auto t = start("local", [&](RuntimeOptions &o) {
        home = o.env["HOME"];
        write_file(home + "/.gitconfig", theirs);
        make_old(home + "/.gitconfig");
    });
    EXPECT_NE(mtime_of(home + "/.gitconfig"), kLongAgo);
    EXPECT_EQ(content(run(*t->runtime, "git config --global user.name; git config --global core.autocrlf")), "openhands\ninput");
}

TEST_P(Git, CloneAtBranchThenChangesAndDiffs) {
    Upstream up;
    // The sandbox backend sees only its own filesystem: put the bare repository in the workspace.
    auto s = start(GetParam(), [&](RuntimeOptions &o) {
        std::string ws = o.config.get_string("core.workspace_base");
        sh("cp -r " + q(up.bare) + " " + q(ws + "/upstream.git"));
        o.config.set("sandbox.selected_repo", "file://" + std::string(GetParam() == "local" ? ws : "/workspace") + "/upstream.git@dev");
    });
    auto &rt = *s->runtime;
    EXPECT_NE(std::find(s->statuses.begin(), s->statuses.end(), "STATUS$SETTING_UP_WORKSPACE"), s->statuses.end());
    std::string repo = s->workspace_inside + "/upstream";
    EXPECT_EQ(content(run(rt, "git -C " + q(repo) + " branch --show-current")), "dev");
    EXPECT_EQ(read_file(s->workspace->path() + "/upstream/dev.txt"), "dev\n");

    // Nothing changed yet (the upstream bare repo itself is untracked in the non-repo workspace root).
    EXPECT_TRUE(git_changes(rt.wire(), repo).empty());

    run(rt, "cd " + q(repo) + " && printf 'hello\\nmore\\n' > a.txt && rm 'with space.txt' && printf 'n\\n' > 'new file.txt' && "
                               "mkdir -p sub && printf 'x' > sub/x.txt && git add sub/x.txt && cd -");
    auto changes = git_changes(rt.wire(), repo);
    std::vector<std::pair<std::string, std::string>> got;
    for (const auto &c : changes) got.emplace_back(c.status, c.path);
    std::vector<std::pair<std::string, std::string>> want = {
        {"M", "a.txt"}, {"A", "new file.txt"}, {"A", "sub/x.txt"}, {"D", "with space.txt"}};
    EXPECT_EQ(got, want);

    // From the workspace root: the repository directly below it is found, paths prefixed with its name.
    auto from_root = git_changes(rt.wire(), s->workspace_inside);
    bool found = false;
    for (const auto &c : from_root) found |= c.status == "M" && c.path == "upstream/a.txt";
    EXPECT_TRUE(found);

    GitDiff d = git_diff(rt.wire(), "a.txt", repo);
    EXPECT_EQ(d.original, "hello");
    EXPECT_EQ(d.modified, "hello\nmore");
    GitDiff gone = git_diff(rt.wire(), "with space.txt", repo);
    EXPECT_EQ(gone.original, "space");
    EXPECT_EQ(gone.modified, "");
    GitDiff fresh = git_diff(rt.wire(), "upstream/new file.txt", s->workspace_inside);
    EXPECT_EQ(fresh.original, "");
    EXPECT_EQ(fresh.modified, "n");
    try {
        git_diff(rt.wire(), "/etc/hostname", repo);
        FAIL() << "a file outside any repository has a diff";
    } catch (const RuntimeError &e) {
        EXPECT_STREQ(e.what(), "no_repository");
    }

    // Microagents of the cloned repository: *.md below .openhands/microagents, README.md skipped.
    auto agents = read_microagents(rt.wire(), repo);
    ASSERT_EQ(agents.size(), 2u);
    EXPECT_EQ(agents[0].path, "knowledge/k8s.md");
    EXPECT_EQ(agents[0].name, "knowledge/k8s");
    EXPECT_EQ(agents[0].content, "Know this.\n");
    EXPECT_EQ(agents[1].path, "repo.md");
    EXPECT_EQ(agents[1].name, "repo_rules");
    EXPECT_TRUE(read_microagents(rt.wire(), s->workspace_inside).empty());
}

TEST_P(Git, CloneWithoutBranchMakesAWorkspaceBranchAndInit) {
    Upstream up;
    auto s = start(GetParam(), [&](RuntimeOptions &o) {
        sh("cp -r " + q(up.bare) + " " + q(o.config.get_string("core.workspace_base") + "/up.git"));
    });
    auto &rt = *s->runtime;
    std::string path = rt.clone_repo("file://" + s->workspace_inside + "/up.git");
    EXPECT_EQ(path, s->workspace_inside + "/up");
    std::string branch = content(run(rt, "git -C " + q(path) + " branch --show-current"));
    EXPECT_EQ(branch.rfind("openhands-workspace-", 0), 0u) << branch;
    // On a new branch, changes are taken against the merge base with origin's default branch.
    run(rt, "printf 'changed\\n' > " + q(path + "/a.txt"));
    auto changes = git_changes(rt.wire(), path);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].status, "M");
    EXPECT_EQ(changes[0].path, "a.txt");

    // A missing repository is a clear error.
    EXPECT_THROW(rt.clone_repo("file://" + s->workspace_inside + "/missing.git"), RuntimeError);

    // git init of the workspace: a new repository whose staged and untracked files count as added.
    run(rt, "mkdir -p " + q(s->workspace_inside + "/fresh") + " && printf 'f' > " + q(s->workspace_inside + "/fresh/f.txt"));
    init_repo(rt.wire(), s->workspace_inside + "/fresh");
    auto added = git_changes(rt.wire(), s->workspace_inside + "/fresh");
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(added[0].status, "A");
    EXPECT_EQ(added[0].path, "f.txt");
}

INSTANTIATE_TEST_SUITE_P(Runtimes, Git, ::testing::Values("local", "sandbox"), [](const auto &info) { return info.param; });

namespace {

// A fake GitHub for git's dumb HTTP protocol: serves `root` and demands Basic x-access-token:<token>.
// It writes each request's path and whether its credentials were right into `log`.
class GitHubHttpFake {
  public:
    GitHubHttpFake(const std::string &root, const std::string &token, const TempDir &dir) : log_(dir / "requests.log") {
        std::string script = dir / "fake_github.py";
        write_file(script,
                   "import base64, functools, http.server, os, sys\n"
                   "root, token, port_file, log = sys.argv[1:5]\n"
                   "want = 'Basic ' + base64.b64encode(('x-access-token:' + token).encode()).decode()\n"
                   "class H(http.server.SimpleHTTPRequestHandler):\n"
                   "    def do_GET(self):\n"
                   "        got = self.headers.get('Authorization')\n"
                   "        with open(log, 'a') as f: f.write(self.path + ' ' + ('ok' if got == want else 'bad' if got else 'none') + '\\n')\n"
                   "        if got != want:\n"
                   "            self.send_response(401); self.send_header('WWW-Authenticate', 'Basic realm=\"fake\"')\n"
                   "            self.send_header('Content-Length', '0'); self.end_headers(); return\n"
                   "        super().do_GET()\n"
                   "    def log_message(self, *a): pass\n"
                   "srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(H, directory=root))\n"
                   "open(port_file + '.tmp', 'w').write(str(srv.server_address[1])); os.rename(port_file + '.tmp', port_file)\n"
                   "srv.serve_forever()\n");
        std::string port_file = dir / "port";
        std::vector<std::string> args = {"/usr/bin/python3", script, root, token, port_file, log_};
        std::vector<char *> argv;
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
        for (int i = 0; i < 300 && pid_ > 0 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (fs::exists(port_file)) port_ = std::stoi(read_file(port_file));
    }
    ~GitHubHttpFake() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    int port() const { return port_; }
    std::string log() const { return fs::exists(log_) ? read_file(log_) : ""; }

  private:
    std::string log_;
    pid_t pid_ = -1;
    int port_ = 0;
};

}  // namespace

TEST(GitToken, GitHubHttpFakeCloneUsesTheTokenAndLeavesNoTrace) {
    const std::string token = "ghp_SECRETtoken0123456789abcdef";
    Upstream up;
    TempDir fake_dir("ahsvc-fake");
    GitHubHttpFake github(up.dir.path(), token, fake_dir);
    ASSERT_GT(github.port(), 0) << "the fake GitHub did not start";
    const std::string host = "http://127.0.0.1:" + std::to_string(github.port());
    auto s = start("local", [](RuntimeOptions &o) {
        o.env["DEBUG"] = "1";  // the host logs all it has
        o.env["no_proxy"] = o.env["NO_PROXY"] = "127.0.0.1";  // a CI proxy must not take the loopback request
    });
    auto &rt = *s->runtime;

    std::vector<std::string> transcript;  // every request and response body that crossed the wire
    std::string upload_destination;
    rt.wire().set_observer([&](const actionhost::client::HttpRequest &req, const actionhost::client::HttpResponse &resp) {
        if (req.path.rfind("/upload_file", 0) == 0) upload_destination = req.path;  // the token's one way in
        else transcript.push_back(req.path + "\n" + req.body);
        transcript.push_back(resp.body);
    });
    // The tokens are read from this process's environment when cloning (the host never had them).
    setenv("GITHUB_HOST", host.c_str(), 1);   // a self-hosted GitHub, as GITHUB_HOST allows
    setenv("GITHUB_TOKEN", token.c_str(), 1);
    setenv("GITLAB_TOKEN", "glpat-other", 1);  // for another host: must not be offered
    std::string path;
    try {
        path = rt.clone_repo(host + "/repo.git@dev");
    } catch (...) {
    }
    unsetenv("GITHUB_HOST");
    unsetenv("GITHUB_TOKEN");
    unsetenv("GITLAB_TOKEN");
    ASSERT_EQ(path, s->workspace_inside + "/repo") << github.log();
    EXPECT_EQ(read_file(s->workspace->path() + "/repo/dev.txt"), "dev\n");
    std::string requests = github.log();
    EXPECT_NE(requests.find("/info/refs?service=git-upload-pack none"), std::string::npos) << requests;
    EXPECT_NE(requests.find(" ok\n"), std::string::npos) << requests;
    EXPECT_EQ(requests.find(" bad\n"), std::string::npos) << "a wrong credential was offered:\n" << requests;

    // Where it could land: commands and observations, the shell's history, logs, git's config files.
    rt.wire().set_observer({});
    ASSERT_FALSE(upload_destination.empty());
    for (const auto &t : transcript) EXPECT_EQ(t.find(token), std::string::npos) << t;
    for (const auto &l : s->logs) EXPECT_EQ(l.find(token), std::string::npos) << l;
    std::string history = content(run(rt, "history; cat ~/.bash_history 2>/dev/null; true"));
    EXPECT_EQ(history.find(token), std::string::npos);
    std::string configs = content(run(rt, "cat " + q(path + "/.git/config") + " ~/.gitconfig ~/.git-credentials 2>/dev/null; true"));
    EXPECT_EQ(configs.find(token), std::string::npos) << configs;
    EXPECT_EQ(configs.find("x-access-token"), std::string::npos) << "no helper stays configured\n" << configs;
    EXPECT_EQ(content(run(rt, "git -C " + q(path) + " remote get-url origin")), host + "/repo.git");
    // The private directory the token was uploaded into is gone.
    std::string dest = upload_destination.substr(upload_destination.find("destination=") + 12);
    dest = dest.substr(0, dest.find('&'));
    EXPECT_FALSE(fs::exists(dest)) << dest;
    // The host's log (stderr of the local host process, runtime id local-<pid>).
    std::string pid = rt.runtime_id().substr(rt.runtime_id().find('-') + 1);
    std::error_code ec;
    fs::path log = fs::read_symlink("/proc/" + pid + "/fd/2", ec);
    ASSERT_FALSE(ec) << "cannot find the host's log";
    std::string host_log = read_file(log.string());
    EXPECT_EQ(host_log.find(token), std::string::npos);
}

namespace {

// The client's provider token, exported into the sandbox as OpenHands does, used by plain `git` there.
class GitTokenInside : public ::testing::TestWithParam<std::string> {
  protected:
    std::unique_ptr<Started> start_with_token(const std::string &host, const std::string &token, bool exported) {
        setenv("GITHUB_HOST", host.c_str(), 1);  // a self-hosted GitHub, as GITHUB_HOST allows
        setenv("GITHUB_TOKEN", token.c_str(), 1);
        std::unique_ptr<Started> s;
        try {
            s = start(GetParam(), [&](RuntimeOptions &o) {
                o.env["no_proxy"] = o.env["NO_PROXY"] = "127.0.0.1";
                o.config.set("sandbox.network", true);  // the fake listens on the machine's loopback
                if (!exported) o.config.set("sandbox.export_git_tokens", false);
            });
        } catch (...) {
        }
        unsetenv("GITHUB_HOST");
        unsetenv("GITHUB_TOKEN");
        return s;
    }
};

}  // namespace

TEST_P(GitTokenInside, ClientTokenIsUsableByGitInsideByDefaultAndNotWhenOptedOut) {
    const std::string token = "ghp_INSIDEtoken0123456789abcdef";
    Upstream up;
    TempDir fake_dir("ahsvc-fake");
    GitHubHttpFake github(up.dir.path(), token, fake_dir);
    ASSERT_GT(github.port(), 0) << "the fake GitHub did not start";
    const std::string host = "http://127.0.0.1:" + std::to_string(github.port());
    const std::string clone = "cd /tmp && rm -rf c && GIT_TERMINAL_PROMPT=0 git clone -q " + host + "/repo.git c 2>&1 && cat c/a.txt";
    {
        auto s = start_with_token(host, token, true);
        ASSERT_TRUE(s);
        EXPECT_EQ(bash_var(*s->runtime, "GITHUB_TOKEN"), token);
        json obs = run(*s->runtime, clone);
        EXPECT_EQ(exit_code(obs), 0) << obs.dump() << "\n" << github.log();
        EXPECT_EQ(content(obs), "hello");
        EXPECT_NE(github.log().find(" ok\n"), std::string::npos) << "git inside sent the token:\n" << github.log();
        EXPECT_EQ(github.log().find(" bad\n"), std::string::npos) << github.log();
        // No file of git's holds it: the helper reads the variable when git asks.
        std::string configs = content(run(*s->runtime, "cat ~/.gitconfig ~/.git-credentials /tmp/c/.git/config 2>/dev/null; true"));
        EXPECT_EQ(configs.find(token), std::string::npos) << configs;
    }
    fs::remove(fake_dir / "requests.log");
    {
        auto s = start_with_token(host, token, false);
        ASSERT_TRUE(s);
        // The local host inherits the client's whole environment (as OpenHands' LocalRuntime); the sandbox
        // starts from a clean one.
        if (GetParam() != "local") {
            EXPECT_EQ(bash_var(*s->runtime, "GITHUB_TOKEN"), std::nullopt);
        }
        json obs = run(*s->runtime, clone);
        EXPECT_NE(exit_code(obs), 0) << obs.dump();
        EXPECT_EQ(github.log().find(" ok\n"), std::string::npos) << github.log();
    }
}

INSTANTIATE_TEST_SUITE_P(Runtimes, GitTokenInside, ::testing::Values("local", "sandbox"), [](const auto &info) { return info.param; });
