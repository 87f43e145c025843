#include "local_host.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/runtime_support/owned_dir.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <actionhost/runtime_support/remove_tree.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::local_runtime {

using namespace actionhost::runtime_support;
namespace fs = std::filesystem;

namespace {

constexpr const char *kWorkspacePrefix = "openhands-workspace-";

}  // namespace

std::string LaunchPlan::pool_key() const {
    nlohmann::json env_json = nlohmann::json::object();
    for (const auto &[k, v] : env)
        if (k != "SESSION_API_KEY" && k != "OPENHANDS_SESSION_ID") env_json[k] = v;
    return actionhost::common::dump_json(nlohmann::json{{"install", install_dir}, {"workspace", workspace_base}, {"args", args},
                                                        {"env", env_json}, {"die_with_parent", die_with_parent}});
}

LocalHost launch_host(const LaunchPlan &plan, double timeout_s, const std::function<void(pid_t)> &on_spawned) {
    LocalHost h;
    int lock_fd = -1;
    struct CloseFd {
        int &fd;
        ~CloseFd() {
            if (fd >= 0) ::close(fd);
        }
    } close_lock{lock_fd};
    try {
        OwnedDir run_dir = make_owned_temp_dir(kRunDirPrefix);
        h.run_dir = run_dir.path;
        lock_fd = run_dir.lock_fd;
        std::string workspace = plan.workspace_base;
        if (workspace.empty()) {
            workspace = make_temp_dir(kWorkspacePrefix);
            h.temp_workspace = workspace;
            std::ofstream(h.run_dir + "/temp_workspace") << workspace;
        }
        if (plan.keep) std::ofstream(h.run_dir + "/kept") << "";
        fs::create_directories(workspace);
        h.workspace = fs::canonical(workspace).string();
        SpawnOptions spawn;
        spawn.argv = {plan.install_dir + "/bin/actionhost", "0", "--working-dir", h.workspace, "--port-file", h.run_dir + "/port"};
        spawn.argv.insert(spawn.argv.end(), plan.args.begin(), plan.args.end());
        spawn.env = plan.env;
        h.key = spawn.env["SESSION_API_KEY"];
        spawn.log_path = h.run_dir + "/host.log";
        spawn.cwd = h.workspace;
        spawn.die_with_parent = plan.die_with_parent;
        spawn.keep_fds = {lock_fd};  // the host holds its run directory's owner lock for its whole life
        h.pid = spawn_process(spawn);
        if (on_spawned) on_spawned(h.pid);
        const int port = wait_port_file(h.run_dir + "/port", h.pid, timeout_s, spawn.log_path);
        h.url = "http://127.0.0.1:" + std::to_string(port);
        return h;
    } catch (...) {
        stop_host(h);  // a failed start leaves no process or directory behind
        throw;
    }
}

void stop_host(LocalHost &h) {
    if (h.pid > 0) stop_process_group(h.pid, 5.0);
    h.pid = -1;
    if (!h.run_dir.empty()) remove_tree(h.run_dir);
    if (!h.temp_workspace.empty()) remove_tree(h.temp_workspace);
    h.run_dir.clear();
    h.temp_workspace.clear();
}

void sweep_dead_hosts() {
    sweep_abandoned_dirs(kRunDirPrefix, [](const std::string &run_dir) {
        if (fs::exists(run_dir + "/kept")) return;
        std::string workspace;
        std::getline(std::ifstream(run_dir + "/temp_workspace"), workspace);
        // Only a workspace this backend made: <TMPDIR>/openhands-workspace-*, a real directory of ours.
        const fs::path w(workspace);
        struct stat st{};
        if (w.parent_path() != fs::path(temp_root()) || w.filename().string().rfind(kWorkspacePrefix, 0) != 0 ||
            ::lstat(workspace.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
            return;
        remove_tree(workspace);
    });
}

}  // namespace actionhost::local_runtime
