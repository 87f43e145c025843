#include "actionhost/common/process/child_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "actionhost/common/inherited_fds.hpp"
#include "actionhost/common/oom.hpp"

namespace actionhost::common {

namespace {

void set_nonblocking_cloexec(int fd) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// Only async-signal-safe calls between fork and exec: the host is multithreaded.
[[noreturn]] void child_fail(int report_fd, int err) {
    ssize_t ignored = write(report_fd, &err, sizeof err);
    (void)ignored;
    _exit(127);
}

// Where the child starts: the working directory, else the user's home, else / (as the fork path does).
std::string start_directory(const SpawnSpec &spec) {
    auto usable = [](const std::string &d) { return !d.empty() && access(d.c_str(), X_OK) == 0; };
    if (usable(spec.working_dir)) return spec.working_dir;
    if (spec.identity && usable(spec.identity->home)) return spec.identity->home;
    return "/";
}

// The child without a copy of the host: glibc's posix_spawn is clone(CLONE_VM|CLONE_VFORK), so no page
// tables are copied and the host's other threads take no copy-on-write faults afterwards (a fork here
// took ~4 ms of a host's start, with the listeners being set up beside it). Session leader, then the
// terminal opened by name, which makes it the controlling one; every other descriptor closed; signals
// default and unblocked. Returns 0 or an errno.
int spawn_without_copy(const SpawnSpec &spec, char *const argv[], char *const envp[], int io_child, pid_t &pid) {
    std::string terminal;
    if (spec.use_pty) {
        char name[128];
        if (const int e = ttyname_r(io_child, name, sizeof name); e != 0) return e;
        terminal = name;
    }
    const std::string dir = start_directory(spec);
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (spec.use_pty) {
        posix_spawn_file_actions_addopen(&actions, 0, terminal.c_str(), O_RDWR, 0);
        posix_spawn_file_actions_adddup2(&actions, 0, 1);
        posix_spawn_file_actions_adddup2(&actions, 0, 2);
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, io_child, 1);
        posix_spawn_file_actions_adddup2(&actions, io_child, 2);
    }
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    const int rc = posix_spawn(&pid, spec.program.c_str(), &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

int shell_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

}  // namespace

std::unique_ptr<ChildProcess> ChildProcess::spawn(const SpawnSpec &spec, std::string *error) {
    // Everything the child needs is prepared here, before fork.
    std::vector<char *> argv;
    std::vector<std::string> args = spec.argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envs = spec.identity ? spec.identity->env : std::vector<std::string>{};
    std::vector<char *> envp;
    for (auto &e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    const ShellIdentity *id = spec.identity;

    int io_child = -1, io_parent = -1;
    if (spec.use_pty) {
        winsize ws{};
        ws.ws_row = spec.rows;
        ws.ws_col = spec.cols;
        if (openpty(&io_parent, &io_child, nullptr, nullptr, &ws) != 0) {
            *error = std::string("openpty: ") + std::strerror(errno);
            return nullptr;
        }
        // For a program: no echo (the command we type is not output), LF stays LF. Either way UTF-8
        // aware line editing.
        termios t{};
        tcgetattr(io_child, &t);
        if (!spec.human_terminal) {
            t.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHONL);
            t.c_oflag &= ~static_cast<tcflag_t>(ONLCR);
        }
        t.c_iflag |= IUTF8;
        tcsetattr(io_child, TCSANOW, &t);
    } else {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            *error = std::string("pipe: ") + std::strerror(errno);
            return nullptr;
        }
        io_parent = p[0];
        io_child = p[1];
    }
    if (!(id && id->switch_user)) {
        pid_t spawned = -1;
        const int rc = spawn_without_copy(spec, argv.data(), envp.data(), io_child, spawned);
        close(io_child);
        if (rc != 0) {
            close(io_parent);
            *error = "cannot start " + spec.program + ": " + std::strerror(rc);
            return nullptr;
        }
        return adopt(spawned, io_parent);
    }

    // Switching user needs setgroups/setgid/setuid between fork and exec, which posix_spawn cannot do.
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        *error = std::string("pipe: ") + std::strerror(errno);
        close(io_parent);
        close(io_child);
        return nullptr;
    }

    const pid_t pid = fork();
    if (pid < 0) {
        *error = std::string("fork: ") + std::strerror(errno);
        close(io_parent);
        close(io_child);
        close(report[0]);
        close(report[1]);
        return nullptr;
    }
    if (pid == 0) {
        close(io_parent);
        close(report[0]);
        if (setsid() < 0) child_fail(report[1], errno);
        if (spec.use_pty) {
            if (ioctl(io_child, TIOCSCTTY, 0) < 0) child_fail(report[1], errno);
            dup2(io_child, 0);
            dup2(io_child, 1);
            dup2(io_child, 2);
        } else {
            const int devnull = open("/dev/null", O_RDONLY);
            dup2(devnull, 0);
            dup2(io_child, 1);
            dup2(io_child, 2);
            if (devnull > 2) close(devnull);
        }
        if (io_child > 2) close(io_child);
        // The host's other descriptors (sockets, files) must not leak into the sandbox's processes.
        common::close_on_exec_from(3);  // report[1] is close-on-exec already: it reports until the exec
        // Signal dispositions set to "ignore" and blocked masks survive exec: reset what the host set.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        if (id && id->switch_user) {
            if (setgroups(id->groups.size(), id->groups.data()) != 0) child_fail(report[1], errno);
            if (setgid(id->gid) != 0) child_fail(report[1], errno);
            if (setuid(id->uid) != 0) child_fail(report[1], errno);
        }
        if (spec.working_dir.empty() || chdir(spec.working_dir.c_str()) != 0) {
            if (!(id && chdir(id->home.c_str()) == 0)) {
                if (chdir("/") != 0) child_fail(report[1], errno);
            }
        }
        execve(spec.program.c_str(), argv.data(), envp.data());
        child_fail(report[1], errno);
    }

    close(io_child);
    close(report[1]);
    int child_errno = 0;
    ssize_t n;
    do {
        n = read(report[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    close(report[0]);
    auto child = adopt(pid, io_parent);
    if (n > 0) {
        *error = "cannot start " + spec.program + ": " + std::strerror(child_errno);
        return nullptr;  // the destructor reaps the failed child
    }
    return child;
}

std::unique_ptr<ChildProcess> ChildProcess::adopt(pid_t pid, int out_fd) {
    auto child = std::unique_ptr<ChildProcess>(new ChildProcess());
    child->pid_ = pid;
    common::prefer_as_oom_victim(pid);  // a command exhausting the memory limit goes before the host
    child->out_fd_ = out_fd;
    set_nonblocking_cloexec(out_fd);
    child->pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (child->pidfd_ >= 0) fcntl(child->pidfd_, F_SETFD, FD_CLOEXEC);
    return child;
}

ChildProcess::~ChildProcess() {
    kill_session();
    if (!reaped_ && pid_ > 0) {
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (pidfd_ >= 0) close(pidfd_);
}

bool ChildProcess::write_all(std::string_view data, std::chrono::steady_clock::time_point deadline) {
    while (!data.empty()) {
        const ssize_t n = write(out_fd_, data.data(), data.size());
        if (n > 0) {
            data.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) return false;
        const auto left = deadline - std::chrono::steady_clock::now();
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
        if (ms <= 0) return false;
        pollfd p{out_fd_, POLLOUT, 0};
        poll(&p, 1, static_cast<int>(std::min<long long>(ms, 1000)));
    }
    return true;
}

void ChildProcess::kill_session() {
    if (pid_ <= 0) return;
    // Once the leader is reaped its pid may be reused; the session scan below stays safe because the
    // kernel keeps a pid reserved while it names a live session.
    if (!reaped_) kill(-pid_, SIGKILL);
    // Background jobs of an interactive shell sit in process groups of their own, within its session.
    DIR *proc = opendir("/proc");
    if (proc == nullptr) return;
    while (dirent *e = readdir(proc)) {
        const pid_t p = static_cast<pid_t>(std::atoi(e->d_name));
        if (p <= 0) continue;
        std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        const size_t close_paren = line.rfind(')');
        if (close_paren == std::string::npos) continue;
        std::istringstream fields(line.substr(close_paren + 1));
        std::string state;
        long ppid = 0, pgrp = 0, session = 0;
        if (fields >> state >> ppid >> pgrp >> session && session == pid_) kill(p, SIGKILL);
    }
    closedir(proc);
}

bool ChildProcess::try_reap(int *exit_code) {
    if (reaped_) {
        *exit_code = exit_code_;
        return true;
    }
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        reaped_ = true;
        exit_code_ = shell_status(status);
        *exit_code = exit_code_;
        return true;
    }
    if (r < 0 && errno == ECHILD) {  // reaped elsewhere (SIGCHLD ignored by the host)
        reaped_ = true;
        *exit_code = exit_code_;
        return true;
    }
    return false;
}

}  // namespace actionhost::common
