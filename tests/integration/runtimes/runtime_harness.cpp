#include "runtime_harness.hpp"

#include <Poco/Zip/ZipArchive.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/client/http_transport.hpp>
#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/host_process.hpp"
#include "support/run_process.hpp"
#include "support/test_images.hpp"

namespace runtimes_test {

using namespace actionhost::client;
using actionhost::testing::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

RuntimeOptions test_runtime_options(const std::string &backend, const std::string &workspace, const std::string &state_dir) {
    RuntimeOptions o;
    o.install_dir = actionhost::testing::build_path("");
    if (!o.install_dir.empty() && o.install_dir.back() == '/') o.install_dir.pop_back();
    o.config.set("core.runtime", backend);
    o.config.set("core.workspace_base", workspace);
    o.config.set("core.state_dir", state_dir);
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    return o;
}

std::unique_ptr<StartedRuntime> start_runtime(const std::string &backend, const std::function<void(Config &)> &tweak,
                                              const std::function<void(RuntimeOptions &)> &tweak_options) {
    auto s = std::make_unique<StartedRuntime>();
    s->workspace = std::make_unique<TempDir>("ahrt-ws");
    s->state = std::make_unique<TempDir>("ahrt-state");
    RuntimeOptions o = test_runtime_options(backend, s->workspace->path(), s->state->path());
    if (backend == "docker") o.config.set("sandbox.base_container_image", DockerForTests::image());
    // The machine's ~/.bashrc (pyenv init) costs seconds per bash start; the local host would read it.
    if (backend == "local") o.env["HOME"] = s->state->path();
    if (tweak) tweak(o.config);
    if (tweak_options) tweak_options(o);
    StartedRuntime *raw = s.get();
    o.on_status = [raw](const std::string &st, const std::string &) { raw->statuses.push_back(st); };
    s->runtime = Runtime::create(std::move(o));
    s->runtime->connect();
    s->workspace_inside = backend == "local" || backend == "cli" ? fs::canonical(s->workspace->path()).string()
                                             : s->runtime->config().get_string("core.workspace_mount_path_in_sandbox", "/workspace");
    return s;
}

json run(Runtime &rt, const std::string &command, double timeout_s) {
    json action = {{"action", "run"},
                   {"args", {{"command", command}, {"is_input", false}, {"thought", ""}, {"blocking", false}}},
                   {"timeout", timeout_s}};
    return rt.execute(action);
}

int exit_code(const json &obs) {
    if (obs.value("observation", "") != "run") return -1000;
    return obs["extras"]["metadata"].value("exit_code", -1000);
}

void check_bash(StartedRuntime &s) {
    Runtime &rt = *s.runtime;
    json obs = run(rt, "echo hi");
    EXPECT_EQ(obs.value("observation", ""), "run") << obs.dump();
    EXPECT_EQ(obs.value("content", ""), "hi") << obs.dump();
    EXPECT_EQ(exit_code(obs), 0);
    EXPECT_EQ(run(rt, "pwd").value("content", ""), s.workspace_inside);
    EXPECT_EQ(exit_code(run(rt, "mkdir -p sub && cd sub")), 0);
    EXPECT_EQ(run(rt, "pwd").value("content", ""), s.workspace_inside + "/sub");  // cd persists
    json missing = run(rt, "nonexistent_command_xyz");
    EXPECT_EQ(exit_code(missing), 127) << missing.dump();
    EXPECT_NE(missing.value("content", "").find("command not found"), std::string::npos);
    EXPECT_EQ(exit_code(run(rt, "cd " + s.workspace_inside)), 0);
}

void check_read_write(StartedRuntime &s) {
    Runtime &rt = *s.runtime;
    std::string path = s.workspace_inside + "/notes/a.txt";
    json w = rt.execute({{"action", "write"}, {"args", {{"path", path}, {"content", "line1\nline2"}}}});
    EXPECT_EQ(w.value("observation", ""), "write") << w.dump();
    // Written through the sandbox, visible outside in the workspace.
    EXPECT_EQ(actionhost::testing::read_file(s.workspace->path() + "/notes/a.txt"), "line1\nline2\n");
    json r = rt.execute({{"action", "read"}, {"args", {{"path", path}}}});
    EXPECT_EQ(r.value("observation", ""), "read") << r.dump();
    EXPECT_EQ(r.value("content", ""), "line1\nline2\n");
    json missing = rt.execute({{"action", "read"}, {"args", {{"path", s.workspace_inside + "/nope.txt"}}}});
    EXPECT_EQ(missing.value("observation", ""), "error") << missing.dump();
    EXPECT_NE(missing.value("content", "").find("File not found"), std::string::npos) << missing.dump();
}

void check_edit(StartedRuntime &s) {
    Runtime &rt = *s.runtime;
    std::string path = s.workspace_inside + "/e.py";
    json created = rt.execute({{"action", "edit"},
                               {"args", {{"command", "create"}, {"path", path}, {"file_text", "x = 1\ny = 2\n"}, {"impl_source", "oh_aci"}}}});
    EXPECT_EQ(created.value("observation", ""), "edit") << created.dump();
    json replaced = rt.execute({{"action", "edit"},
                                {"args", {{"command", "str_replace"}, {"path", path}, {"old_str", "y = 2"}, {"new_str", "y = 3"}, {"impl_source", "oh_aci"}}}});
    EXPECT_EQ(replaced.value("observation", ""), "edit") << replaced.dump();
    EXPECT_NE(replaced.value("content", "").find("has been edited"), std::string::npos) << replaced.dump();
    EXPECT_EQ(actionhost::testing::read_file(s.workspace->path() + "/e.py"), "x = 1\ny = 3\n");
    json view = rt.execute({{"action", "read"}, {"args", {{"path", path}, {"impl_source", "oh_aci"}}}});
    EXPECT_NE(view.value("content", "").find("y = 3"), std::string::npos) << view.dump();
}

void check_upload_download(StartedRuntime &s) {
    Runtime &rt = *s.runtime;
    TempDir local("ahrt-up");
    actionhost::testing::write_file(local / "one.txt", "uploaded one");
    actionhost::testing::write_file(local / "tree/inner/two.txt", "uploaded two");
    rt.wire().upload(local / "one.txt", s.workspace_inside + "/up", false);
    EXPECT_EQ(actionhost::testing::read_file(s.workspace->path() + "/up/one.txt"), "uploaded one");
    rt.wire().upload(local / "tree", s.workspace_inside + "/up", true);
    EXPECT_EQ(actionhost::testing::read_file(s.workspace->path() + "/up/tree/inner/two.txt"), "uploaded two");
    json names = rt.wire().list_files(s.workspace_inside + "/up");
    EXPECT_EQ(names, json({"tree/", "one.txt"})) << names.dump();
    std::string zip = rt.wire().download(s.workspace_inside + "/up");
    std::istringstream in(zip);
    Poco::Zip::ZipArchive archive(in);
    std::vector<std::string> entries;
    for (auto it = archive.fileInfoBegin(); it != archive.fileInfoEnd(); ++it) entries.push_back(it->first);
    EXPECT_NE(std::find(entries.begin(), entries.end(), "one.txt"), entries.end()) << zip.size();
    EXPECT_NE(std::find(entries.begin(), entries.end(), "tree/inner/two.txt"), entries.end());
}

// ---- Docker --------------------------------------------------------------------------------------

namespace {

bool engine_answers(double timeout_s);

}  // namespace

HttpResponse engine_request(const std::string &method, const std::string &path, const std::string &body, const std::string &type,
                            double timeout_s, const std::vector<std::pair<std::string, std::string>> &headers) {
    Endpoint e;
    e.unix_socket = true;
    e.host = "/var/run/docker.sock";
    HttpConnection c(e);
    HttpRequest r;
    r.method = method;
    r.path = "/v1.41" + path;
    r.body = body;
    r.content_type = type;
    r.timeout_s = timeout_s;
    for (const auto &h : headers) r.headers.push_back(h);
    return c.send(r);
}

std::vector<std::string> repo_tags(const std::string &repo) {
    std::vector<std::string> out;
    nlohmann::json images = nlohmann::json::parse(engine_request("GET", "/images/json").body);
    for (const auto &img : images)
        if (img.contains("RepoTags") && img["RepoTags"].is_array())
            for (const auto &t : img["RepoTags"])
                if (t.get<std::string>().rfind(repo + ":", 0) == 0) out.push_back(t.get<std::string>().substr(repo.size() + 1));
    std::sort(out.begin(), out.end());
    return out;
}


namespace {

bool engine_answers(double timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (int i = 0; i < 1000; ++i) {
        try {
            Endpoint e;
            e.unix_socket = true;
            e.host = "/var/run/docker.sock";
            HttpConnection c(e);
            HttpRequest r;
            r.path = "/_ping";
            r.timeout_s = 2;
            if (c.send(r).status == 200) return true;
        } catch (...) {
        }
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
}

HttpResponse engine(const std::string &method, const std::string &path, const std::string &body = "",
                    const std::string &type = "application/json", double timeout_s = 120) {
    return engine_request(method, path, body, type, timeout_s);
}

}  // namespace

DockerForTests::DockerForTests() {
    if (!engine_answers(0.5)) {
        if (access("/usr/sbin/dockerd", X_OK) != 0 && access("/usr/bin/dockerd", X_OK) != 0) {
            why_not_ = "no Docker engine running and no dockerd installed (apt-get install docker.io)";
            return;
        }
        dockerd_dir_ = std::make_unique<TempDir>("ahrt-dockerd");
        std::string log = *dockerd_dir_ / "dockerd.log";
        pid_t pid = fork();
        if (pid == 0) {
            int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 1);
            dup2(fd, 2);
            setpgid(0, 0);
            execlp("dockerd", "dockerd", "--host", "unix:///var/run/docker.sock", static_cast<char *>(nullptr));
            _exit(127);
        }
        dockerd_pid_ = pid;
        if (!engine_answers(60)) {
            why_not_ = "dockerd did not come up; its log:\n" + actionhost::testing::read_file(log);
            return;
        }
    }
    if (std::string why = import_busybox_image(); !why.empty()) {
        why_not_ = why;
        return;
    }
    available_ = true;
}

namespace {

// POST /images/create?fromSrc=- of a rootfs tar: an image made here, no registry.
std::string import_rootfs(const std::string &tar, const std::string &repo, const std::string &tag) {
    auto r = engine("POST", "/images/create?fromSrc=-&repo=" + repo + "&tag=" + tag, actionhost::testing::read_file(tar),
                    "application/x-tar", 600);
    return r.status == 200 && r.body.find("\"error\"") == std::string::npos ? "" : "image import of " + tar + " failed: " + r.body;
}

}  // namespace

std::string DockerForTests::import_busybox_image() {
    if (engine("GET", "/images/" + std::string(image()) + "/json").status == 200) return "";
    TempDir root("ahrt-rootfs"), out("ahrt-tar");
    if (std::string why = actionhost::testing::make_busybox_rootfs(root.path()); !why.empty()) return why;
    auto tar = actionhost::testing::run_process({"tar", "-C", root.path(), "-cf", out / "rootfs.tar", "."}, 60);
    if (tar.exit_code != 0) return "tar failed: " + tar.output;
    const std::string name = image();
    return import_rootfs(out / "rootfs.tar", name.substr(0, name.find(':')), name.substr(name.find(':') + 1));
}

std::string DockerForTests::debian_image(std::string &why_not) {
    const std::string name = "actionhost-test-debian:bookworm-ipykernel";
    if (engine("GET", "/images/" + name + "/json").status == 200) return name;
    const std::string tar = actionhost::testing::debian_rootfs_tar(why_not);
    if (tar.empty()) return "";
    why_not = import_rootfs(tar, "actionhost-test-debian", "bookworm-ipykernel");
    return why_not.empty() ? name : "";
}

DockerForTests::~DockerForTests() {
    if (dockerd_pid_ > 0) {
        kill(dockerd_pid_, SIGTERM);
        for (int i = 0; i < 300; ++i) {
            if (waitpid(dockerd_pid_, nullptr, WNOHANG) == dockerd_pid_) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        kill(-dockerd_pid_, SIGKILL);
        waitpid(dockerd_pid_, nullptr, 0);
    }
}

}  // namespace runtimes_test
