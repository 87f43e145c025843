#include "server_process.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/process_state.hpp>

namespace actionhost::vscode {
namespace {

// ppid and state of every process, from /proc/<pid>/stat.
std::map<pid_t, std::pair<pid_t, char>> process_table() {
    std::map<pid_t, std::pair<pid_t, char>> table;
    DIR *d = ::opendir("/proc");
    if (!d) return table;
    while (dirent *e = ::readdir(d)) {
        char *end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        if (auto stat = common::read_process_stat(static_cast<pid_t>(pid))) table[static_cast<pid_t>(pid)] = {stat->ppid, stat->state};
    }
    ::closedir(d);
    return table;
}

}  // namespace

std::vector<pid_t> descendants_of(pid_t root) {
    auto table = process_table();
    std::vector<pid_t> out;
    std::vector<pid_t> frontier{root};
    // Bounded: each pass adds only processes not yet seen, and the table is finite.
    for (size_t i = 0; i < frontier.size() && frontier.size() < 100000; ++i) {
        for (const auto &[pid, info] : table) {
            if (info.first == frontier[i] && pid != root) {
                bool seen = false;
                for (pid_t p : out) seen = seen || p == pid;
                if (!seen) {
                    out.push_back(pid);
                    frontier.push_back(pid);
                }
            }
        }
    }
    return out;
}

common::Result<std::unique_ptr<ServerProcess>> ServerProcess::spawn(const SpawnSpec &spec) {
    common::SpawnSpec child;
    child.argv = spec.argv;
    child.env = spec.env;
    child.working_dir = spec.cwd;
    child.use_pty = false;
    child.out = spec.log_fd >= 0 ? common::Stream::descriptor(spec.log_fd) : common::Stream::null();
    child.err = common::Stream::to_stdout();
    // A session of its own: the host's terminal signals don't reach it, and its process group is the
    // handle for stopping the whole tree.
    child.new_session = true;
    if (spec.user.switch_user) child.user = common::UserSwitch{spec.user.uid, spec.user.gid, spec.user.groups};
    auto started = common::ChildProcess::spawn(child);
    if (!started) return started.as_failure();
    return std::unique_ptr<ServerProcess>(new ServerProcess(std::move(started).value()));
}

ServerProcess::ServerProcess(std::unique_ptr<common::ChildProcess> child) : child_(std::move(child)) {}

ServerProcess::~ServerProcess() { stop(); }

pid_t ServerProcess::pid() const { return child_->pid(); }

bool ServerProcess::alive() { return child_->running(); }

void ServerProcess::stop(std::chrono::milliseconds grace) {
    const pid_t pid = child_->pid();
    // Collect the tree first: once the main process dies, its children are re-parented and lost (a
    // descendant that left the server's process group with a setsid of its own, too).
    std::vector<pid_t> tree = descendants_of(pid);
    auto signal_tree = [&](int sig) {
        for (pid_t p : tree) ::kill(p, sig);
    };
    auto tree_left = [&] {
        for (pid_t p : tree)
            if (common::process_is_live(p)) return true;
        return false;
    };
    signal_tree(SIGTERM);
    child_->terminate(grace);  // SIGTERM to the group, SIGKILL after `grace`, reaped
    // Children spawned while we waited are in the group too; SIGKILL whatever is left of both.
    for (pid_t p : descendants_of(pid)) tree.push_back(p);
    signal_tree(SIGKILL);
    auto kill_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
    while (tree_left() && std::chrono::steady_clock::now() < kill_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace actionhost::vscode
