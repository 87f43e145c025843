// A started child: its descriptors, signals to it and its group, waiting for and reaping it.
#include "actionhost/common/process/child_process.hpp"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "actionhost/common/process_state.hpp"

namespace actionhost::common {

namespace {

void close_fd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

}  // namespace

int ExitStatus::shell_code() const {
    if (!wait_status) return -1;
    if (WIFEXITED(*wait_status)) return WEXITSTATUS(*wait_status);
    if (WIFSIGNALED(*wait_status)) return 128 + WTERMSIG(*wait_status);
    return -1;
}

std::string ExitStatus::describe() const {
    if (!wait_status) return "exited (status unknown)";
    const int s = *wait_status;
    if (WIFEXITED(s)) return "exited with status " + std::to_string(WEXITSTATUS(s));
    if (WIFSIGNALED(s)) {
        const char *name = strsignal(WTERMSIG(s));
        return "was killed by signal " + std::to_string(WTERMSIG(s)) + (name ? std::string(" (") + name + ")" : "");
    }
    return "ended (wait status " + std::to_string(s) + ")";
}

ChildProcess::~ChildProcess() {
    if (!released_) {
        kill_session();
        std::lock_guard lock(reap_mu_);
        if (!exit_ && pid_ > 0) {
            while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
            }
        }
    }
    if (in_fd_ == out_fd_) in_fd_ = -1;  // the PTY master, once
    close_fd(in_fd_);
    close_fd(out_fd_);
    close_fd(err_fd_);
    close_fd(pidfd_);
}

void ChildProcess::close_stdin() {
    if (in_fd_ != out_fd_) close_fd(in_fd_);
}

bool ChildProcess::write_all(std::string_view data, std::chrono::steady_clock::time_point deadline) {
    if (in_fd_ < 0) return false;
    while (!data.empty()) {
        const ssize_t n = write(in_fd_, data.data(), data.size());
        if (n > 0) {
            data.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) return false;
        const auto left = deadline - std::chrono::steady_clock::now();
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
        if (ms <= 0) return false;
        pollfd p{in_fd_, POLLOUT, 0};
        poll(&p, 1, static_cast<int>(std::min<long long>(ms, 1000)));
    }
    return true;
}

void ChildProcess::signal(int sig) {
    std::lock_guard lock(reap_mu_);  // not reaped while we signal: the pid is still the child's
    if (!exit_ && !released_) kill(pid_, sig);
}

void ChildProcess::signal_group(int sig) {
    // A group's id stays taken while any member lives, so this reaches the child's group even after
    // the child itself was reaped (its helpers, the shell's background jobs).
    if (pid_ > 0 && !released_) kill(-pid_, sig);
}

void ChildProcess::kill_session() {
    if (pid_ <= 0 || released_) return;
    {
        // Once the leader is reaped its pid may be reused; the session scan below stays safe because
        // the kernel keeps a pid reserved while it names a live session.
        std::lock_guard lock(reap_mu_);
        if (!exit_) kill(-pid_, SIGKILL);
    }
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

void ChildProcess::terminate(std::chrono::milliseconds grace, bool term_group) {
    if (pid_ <= 0 || released_) return;
    if (!wait(std::chrono::milliseconds(0))) {
        if (term_group) {
            signal_group(SIGTERM);
            signal_group(SIGCONT);  // a stopped process acts on the SIGTERM
        } else {
            signal(SIGTERM);
            signal(SIGCONT);
        }
        if (!wait(grace)) {
            signal_group(SIGKILL);
            wait(std::chrono::seconds(10));  // a SIGKILLed process ends unless stuck in the kernel
        }
    }
    signal_group(SIGKILL);  // what the child left in its group
}

std::optional<ExitStatus> ChildProcess::reap_now() {
    std::lock_guard lock(reap_mu_);
    if (exit_ || released_) return exit_;
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        exit_ = ExitStatus{status};
    } else if (r < 0 && errno == ECHILD) {
        // Reaped elsewhere (SIGCHLD ignored by the process): ended, if the pidfd or /proc agrees.
        pollfd p{pidfd_, POLLIN, 0};
        const bool ended = pidfd_ >= 0 ? poll(&p, 1, 0) > 0 : !process_is_live(pid_);
        if (ended) exit_ = ExitStatus{};
    }
    return exit_;
}

bool ChildProcess::try_reap(int *exit_code) {
    const auto status = reap_now();
    if (status) *exit_code = status->shell_code();
    return status.has_value();
}

std::optional<ExitStatus> ChildProcess::wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    // Bounded: each pass sleeps up to a second or until the pidfd says the child ended. Once it says so
    // the next pass reaps at once (a pause there cost every wait 2 ms); only a pass that found it ended
    // yet not reapable, or no pidfd at all, pauses before the next, so the loop never spins.
    bool ended_unreaped = false;
    for (long pass = 0; pass < 10'000'000; ++pass) {
        if (auto status = reap_now()) return status;
        if (released_) return std::nullopt;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        // Rounded up: a wait never ends before its timeout.
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
        if (pidfd_ < 0 || ended_unreaped) std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(2)));
        pollfd p{pidfd_, POLLIN, 0};
        ended_unreaped = pidfd_ >= 0 && poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) > 0;
    }
    return std::nullopt;
}

bool ChildProcess::running() {
    if (wait(std::chrono::milliseconds(0))) return false;
    const auto stat = read_process_stat(pid_);
    // Killed, its other threads still ending: waitpid cannot reap it yet, but it is as good as dead.
    // Waiting for that means a caller asking just after the child died sees it dead, not a few ms later.
    if (stat && stat->state == 'Z') return !wait(std::chrono::milliseconds(2000));
    return true;
}

pid_t ChildProcess::release() {
    std::lock_guard lock(reap_mu_);
    released_ = true;
    if (in_fd_ == out_fd_) in_fd_ = -1;
    close_fd(in_fd_);
    close_fd(out_fd_);
    close_fd(err_fd_);
    close_fd(pidfd_);
    return pid_;
}

}  // namespace actionhost::common
