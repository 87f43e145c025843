#include "server_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include <actionhost/common/inherited_fds.hpp>
#include <actionhost/common/oom.hpp>
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

[[noreturn]] void child_fail(int fd, int err) {
    ssize_t w = ::write(fd, &err, sizeof err);
    (void)w;
    ::_exit(127);
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

std::unique_ptr<ServerProcess> ServerProcess::spawn(const SpawnSpec &spec, std::string &error) {
    if (spec.argv.empty()) {
        error = "no command";
        return nullptr;
    }
    // Everything the child needs is prepared here: between fork and exec only async-signal-safe calls.
    std::vector<char *> argv;
    for (const auto &a : spec.argv) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char *> envp;
    for (const auto &e : spec.env) envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);

    int log_fd = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        error = "cannot open " + spec.log_path + ": " + std::strerror(errno);
        return nullptr;
    }
    if (spec.user.switch_user && ::fchown(log_fd, spec.user.uid, spec.user.gid) != 0) {
        // Not fatal: the descriptor is already open for the child.
    }
    int status_pipe[2];
    if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        ::close(log_fd);
        return nullptr;
    }
    int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    pid_t pid = ::fork();
    if (pid < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        ::close(log_fd);
        ::close(status_pipe[0]);
        ::close(status_pipe[1]);
        if (devnull >= 0) ::close(devnull);
        return nullptr;
    }
    if (pid == 0) {
        int fd = status_pipe[1];
        // A session of its own: the host's terminal signals don't reach it, and its process group is
        // the handle for stopping the whole tree.
        ::setsid();
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int s = 1; s < NSIG; ++s) {
            if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
        }
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
        ::dup2(log_fd, STDOUT_FILENO);
        ::dup2(log_fd, STDERR_FILENO);
        common::close_on_exec_from(3);  // the host's sockets and files stay with the host
        if (spec.user.switch_user) {
            if (::setgroups(spec.user.groups.size(), spec.user.groups.data()) != 0) child_fail(fd, errno);
            if (::setgid(spec.user.gid) != 0) child_fail(fd, errno);
            if (::setuid(spec.user.uid) != 0) child_fail(fd, errno);
        }
        if (::chdir(spec.cwd.c_str()) != 0) child_fail(fd, errno);
        ::execve(argv[0], argv.data(), envp.data());
        child_fail(fd, errno);
    }
    ::close(status_pipe[1]);
    ::close(log_fd);
    if (devnull >= 0) ::close(devnull);
    int child_errno = 0;
    ssize_t n;
    do {
        n = ::read(status_pipe[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    ::close(status_pipe[0]);
    if (n == static_cast<ssize_t>(sizeof child_errno)) {
        ::waitpid(pid, nullptr, 0);
        error = "cannot start " + spec.argv[0] + " in " + spec.cwd + ": " + std::strerror(child_errno);
        return nullptr;
    }
    common::prefer_as_oom_victim(pid);  // an editor exhausting the memory limit goes before the host
    return std::unique_ptr<ServerProcess>(new ServerProcess(pid));
}

ServerProcess::~ServerProcess() { stop(); }

bool ServerProcess::alive() {
    if (reaped_) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        reaped_ = true;
        return false;
    }
    if (r < 0 && errno == ECHILD) {
        // Someone else reaps children (SIGCHLD ignored): fall back to looking at the process.
        if (!common::process_is_live(pid_)) {
            reaped_ = true;
            return false;
        }
    }
    if (r == 0 && !common::process_is_live(pid_)) {
        // Killed, its other threads still ending (node has several). Waiting for that means a token asked
        // for just after the server died restarts it instead of handing out the token of a dead server.
        // Still there after the bound: only its main thread exited, and the server is counted alive.
        if (common::wait_until_reapable(pid_, std::chrono::milliseconds(2000)).outcome != common::ReapWait::StillThere) {
            reaped_ = true;
            return false;
        }
    }
    return true;
}

void ServerProcess::stop(std::chrono::milliseconds grace) {
    // Collect the tree first: once the main process dies, its children are re-parented and lost.
    std::vector<pid_t> tree = descendants_of(pid_);
    if (!reaped_) tree.insert(tree.begin(), pid_);
    auto signal_all = [&](int sig) {
        ::kill(-pid_, sig);  // the process group the server leads (setsid above)
        for (pid_t p : tree) ::kill(p, sig);
    };
    auto any_left = [&] {
        alive();
        for (pid_t p : tree) {
            if (p == pid_ ? !reaped_ : common::process_is_live(p)) return true;
        }
        return false;
    };
    if (tree.empty() && reaped_) {
        ::kill(-pid_, SIGKILL);
        return;
    }
    signal_all(SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (any_left() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Children spawned while we waited are in the group too; SIGKILL whatever is left of both.
    for (pid_t p : descendants_of(pid_)) tree.push_back(p);
    signal_all(SIGKILL);
    auto kill_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
    while (any_left() && std::chrono::steady_clock::now() < kill_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!reaped_) {
        if (::waitpid(pid_, nullptr, 0) == pid_ || errno == ECHILD) reaped_ = true;
    }
}

}  // namespace actionhost::vscode
