#include "images_harness.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/host_process.hpp"
#include "support/http.hpp"
#include "support/run_process.hpp"
#include "support/test_images.hpp"

extern char **environ;

namespace images_test {

using namespace runtimes_test;
using actionhost::client::WireClient;
using actionhost::testing::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

pid_t spawn_logged(const std::vector<std::string> &argv, const std::string &log, const std::vector<std::string> &env = {}) {
    std::vector<char *> a, e;
    for (const auto &s : argv) a.push_back(const_cast<char *>(s.c_str()));
    a.push_back(nullptr);
    std::vector<std::string> env_copy = env;
    if (env.empty())
        for (char **p = environ; *p; ++p) env_copy.emplace_back(*p);
    for (auto &s : env_copy) e.push_back(s.data());
    e.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    if (posix_spawnp(&pid, a[0], &fa, &attr, a.data(), e.data()) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return pid;
}

void stop_group(int &pid) {
    if (pid <= 0) return;
    kill(-pid, SIGKILL);
    for (int i = 0; i < 100 && waitpid(pid, nullptr, WNOHANG) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    pid = -1;
}

}  // namespace

std::unique_ptr<StartedRuntime> start_in_image(const std::string &image, const std::vector<std::string> &plugins,
                                               const std::function<void(actionhost::client::Config &)> &tweak) {
    auto s = std::make_unique<StartedRuntime>();
    s->workspace = std::make_unique<TempDir>("ahimg-ws");
    s->state = std::make_unique<TempDir>("ahimg-state");
    auto o = test_runtime_options("docker", s->workspace->path(), s->state->path());
    o.config.set("sandbox.base_container_image", image);
    o.plugins = plugins;
    if (tweak) tweak(o.config);
    StartedRuntime *raw = s.get();
    o.on_status = [raw](const std::string &st, const std::string &d) { raw->statuses.push_back(st + " " + d); };
    s->runtime = actionhost::client::Runtime::create(std::move(o));
    s->runtime->connect();
    s->workspace_inside = "/workspace";
    return s;
}

json wire_run(WireClient &wire, const std::string &command) {
    return wire.execute({{"action", "run"}, {"args", {{"command", command}, {"is_input", false}, {"thought", ""}, {"blocking", false}}}});
}

void expect_no_loader_leak(WireClient &wire) {
    json env = wire_run(wire, "env | grep -c '^LD_' ; true");
    EXPECT_EQ(env.value("content", ""), "0") << env.dump();
    json maps = wire_run(wire, "grep -c /openhands/actionhost/lib/ /proc/$$/maps ; true");
    EXPECT_EQ(maps.value("content", ""), "0") << "the shell mapped a bundle library: " << maps.dump();
}

void expect_jupyter_needs_ipykernel(WireClient &wire) {
    json cell = wire.execute({{"action", "run_ipython"}, {"args", {{"code", "print(1)"}, {"thought", ""}, {"include_extra", false}}}});
    EXPECT_EQ(cell.value("observation", ""), "error") << cell.dump();
    const std::string text = cell.value("content", "");
    EXPECT_NE(text.find("The jupyter plugin needs python3 with ipykernel, which this image does not have: install python3-ipykernel"),
              std::string::npos)
        << text;
    json info = wire.server_info();
    bool listed = false;
    for (const auto &n : info.value("missing_needs", json::array()))
        listed |= n.value("plugin", "") == "jupyter" && n.value("package", "").find("python3-ipykernel") != std::string::npos;
    EXPECT_TRUE(listed) << info.dump();
}

void expect_debian_image_tools(WireClient &wire) {
    EXPECT_EQ(wire_run(wire, "readlink /proc/$$/exe").value("content", ""), "/usr/bin/bash");
    json cell = wire.execute({{"action", "run_ipython"},
                              {"args", {{"code", "import sys, os\nprint(sys.executable, 6 * 7)\nprint(sum('/openhands/actionhost/lib/' in l for l in open('/proc/self/maps')))"},
                                        {"thought", ""}, {"include_extra", false}}}});
    EXPECT_EQ(cell.value("observation", ""), "run_ipython") << cell.dump();
    EXPECT_EQ(cell.value("content", ""), "/usr/bin/python3 42\n0") << cell.dump();
    expect_no_loader_leak(wire);
    json info = wire.server_info();
    for (const auto &n : info.value("missing_needs", json::array())) EXPECT_NE(n.value("plugin", ""), "jupyter") << info.dump();
}

std::string build_image_from_bundle_tarball(const std::string &base, const std::string &image, std::string &why) {
    const std::string dist = actionhost::testing::bundle_dir();
    if (dist.empty()) return why = "no bundle tree in build/dist (cmake --build --preset default --target bundle_tree)";
    TempDir ctx("ahimg-ctx");
    // The tarball as bundle/pack makes it, then the context: the Dockerfile and that tarball.
    auto packed = actionhost::testing::run_process({"tar", "-C", dist, "-czf", ctx / "actionhost.tar.gz", "actionhost", "micromamba"}, 120);
    if (packed.exit_code != 0) return why = "tar of the bundle failed: " + packed.output;
    actionhost::testing::write_file(ctx / "Dockerfile", "FROM " + base + "\nADD actionhost.tar.gz /openhands/\n");
    auto context = actionhost::testing::run_process({"tar", "-C", ctx.path(), "-cf", ctx / "context.tar", "Dockerfile", "actionhost.tar.gz"}, 60);
    if (context.exit_code != 0) return why = "tar of the context failed: " + context.output;
    auto r = engine_request("POST", "/build?t=" + image + "&rm=1", actionhost::testing::read_file(ctx / "context.tar"), "application/x-tar", 600);
    if (r.status != 200 || r.body.find("\"error\"") != std::string::npos) return why = "build failed: " + r.body;
    return why = "";
}

std::string run_container(const std::string &image, const json &cmd, const std::vector<std::string> &env, int port,
                          const std::string &working_dir) {
    const std::string p = std::to_string(port) + "/tcp";
    json body = {{"Image", image}, {"Cmd", cmd}, {"Entrypoint", json::array()}, {"Env", env}, {"WorkingDir", working_dir},
                 {"ExposedPorts", {{p, json::object()}}},
                 {"HostConfig", {{"PortBindings", {{p, json::array({{{"HostIp", "127.0.0.1"}, {"HostPort", std::to_string(port)}}})}}}}}};
    auto created = engine_request("POST", "/containers/create", body.dump());
    EXPECT_EQ(created.status, 201) << created.body;
    if (created.status != 201) return "";
    const std::string id = json::parse(created.body).value("Id", "");
    auto started = engine_request("POST", "/containers/" + id + "/start");
    EXPECT_EQ(started.status, 204) << started.body;
    return id;
}

std::string container_logs(const std::string &id) {
    return engine_request("GET", "/containers/" + id + "/logs?stdout=1&stderr=1&tail=60").body;
}

bool wait_alive(WireClient &wire, double timeout_s) { return wire.wait_alive(timeout_s, 0.1); }

ChrootHost::ChrootHost(const std::string &root, const std::vector<std::string> &args) : root_(root) {
    const std::string dist = actionhost::testing::bundle_dir();
    if (dist.empty()) {
        why_not_ = "no bundle tree in build/dist";
        return;
    }
    log_ = root + "/../chroot-host.log";
    fs::remove(root + "/tmp/ah-port");
    // unshare: private mounts, a pid namespace whose init is the host (killed with unshare).
    const std::string script =
        "set -e; R=$1; B=$2; shift 2; mkdir -p \"$R/openhands/actionhost\" \"$R/proc\" \"$R/dev\" \"$R/tmp\" \"$R/workspace\"; "
        "mount --bind \"$B\" \"$R/openhands/actionhost\"; mount -o remount,bind,ro \"$R/openhands/actionhost\"; "
        "mount -t proc proc \"$R/proc\"; mount --rbind /dev \"$R/dev\"; "
        "exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root SESSION_API_KEY=chroot-key "
        "chroot \"$R\" \"$@\"";
    std::vector<std::string> argv = {"unshare", "--mount", "--pid", "--fork", "--kill-child", "--", "/bin/sh", "-c", script, "sh",
                                     root, dist + "/actionhost", "/openhands/actionhost/bin/actionhost", "0", "--host", "127.0.0.1",
                                     "--port-file", "/tmp/ah-port", "--working-dir", "/workspace", "--username", "root", "--user-id", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = spawn_logged(argv, log_);
    if (pid_ <= 0) {
        why_not_ = "cannot run unshare";
        return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int i = 0; i < 6000 && std::chrono::steady_clock::now() < deadline; ++i) {
        std::ifstream in(root + "/tmp/ah-port");
        if (in >> port_ && port_ > 0) break;
        port_ = 0;
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
            pid_ = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (port_ <= 0) {
        why_not_ = "the host did not start in " + root + ": " + actionhost::testing::read_file(log_);
        return;
    }
    wire_ = std::make_unique<WireClient>("http://127.0.0.1:" + std::to_string(port_), "chroot-key");
}

ChrootHost::~ChrootHost() {
    wire_.reset();
    stop_group(pid_);
}

}  // namespace images_test
