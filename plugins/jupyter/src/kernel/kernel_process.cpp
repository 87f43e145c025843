#include "kernel/kernel_process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <actionhost/common/inherited_fds.hpp>
#include <actionhost/common/oom.hpp>
#include <actionhost/common/process_state.hpp>

extern char **environ;

namespace actionhost::jupyter {

namespace {
constexpr size_t kTailBytes = 8192;

struct TargetUser {
    bool switch_user = false;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
    std::string name, home, shell;
};

// Resolves who the kernel runs as. Everything is looked up before fork: after fork in a threaded process
// only async-signal-safe calls are allowed.
bool resolve_user(const std::string &username, TargetUser &out, std::string &error, std::string &note) {
    if (username.empty()) return true;
    const uid_t self = geteuid();
    std::vector<char> buf(16384);
    passwd pw{}, *res = nullptr;
    if (getpwnam_r(username.c_str(), &pw, buf.data(), buf.size(), &res) != 0 || res == nullptr) {
        if (self == 0) {
            error = "cannot start the IPython kernel as user '" + username + "': no such user";
            return false;
        }
        note = "user '" + username + "' does not exist; the kernel runs as the host's user";
        return true;
    }
    if (pw.pw_uid == self) return true;
    if (self != 0) {
        note = "the host is not root, so the kernel runs as the host's user instead of '" + username + "'";
        return true;
    }
    out.switch_user = true;
    out.uid = pw.pw_uid;
    out.gid = pw.pw_gid;
    out.name = pw.pw_name;
    out.home = pw.pw_dir ? pw.pw_dir : "/";
    out.shell = pw.pw_shell ? pw.pw_shell : "/bin/sh";
    int n = 64;
    out.groups.resize(static_cast<size_t>(n));
    if (getgrouplist(pw.pw_name, pw.pw_gid, out.groups.data(), &n) < 0) {
        out.groups.resize(static_cast<size_t>(n));
        if (getgrouplist(pw.pw_name, pw.pw_gid, out.groups.data(), &n) < 0) n = 0;
    }
    out.groups.resize(static_cast<size_t>(n));
    return true;
}

// Async-signal-safe error report from the child (errno as a number: strerror may allocate), then exit.
[[noreturn]] void child_fail(const char *what) {
    char num[16];
    int e = errno, n = 0;
    char rev[16];
    do {
        rev[n++] = static_cast<char>('0' + e % 10);
        e /= 10;
    } while (e > 0 && n < 15);
    for (int i = 0; i < n; ++i) num[i] = rev[n - 1 - i];
    (void)!write(2, "actionhost: kernel launch failed: ", 34);
    (void)!write(2, what, strlen(what));
    (void)!write(2, ": errno ", 8);
    (void)!write(2, num, static_cast<size_t>(n));
    (void)!write(2, "\n", 1);
    _exit(127);
}
}  // namespace

std::unique_ptr<KernelProcess> KernelProcess::spawn(const SpawnOptions &o, std::string &error, std::string &note) {
    if (o.argv.empty()) {
        error = "empty kernel command";
        return nullptr;
    }
    TargetUser user;
    if (!resolve_user(o.username, user, error, note)) return nullptr;

    // Environment: the host's, then the extras, then the target user's identity.
    std::map<std::string, std::string> env;
    for (char **e = environ; e && *e; ++e) {
        const char *eq = std::strchr(*e, '=');
        if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
    }
    for (const auto &[k, v] : o.extra_env) env[k] = v;
    if (user.switch_user) {
        env["HOME"] = user.home;
        env["USER"] = user.name;
        env["LOGNAME"] = user.name;
    }
    std::vector<std::string> env_strings;
    for (const auto &[k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char *> envp, argv;
    for (auto &s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = o.argv;
    for (auto &s : argv_copy) argv.push_back(s.data());
    argv.push_back(nullptr);

    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return nullptr;
    }
    const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const char *cwd = o.working_dir.empty() ? nullptr : o.working_dir.c_str();

    const pid_t pid = fork();
    if (pid < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        if (devnull >= 0) close(devnull);
        return nullptr;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here on.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGQUIT}) signal(s, SIG_DFL);
        setsid();
        if (devnull >= 0) dup2(devnull, 0);
        dup2(pipe_fds[1], 1);
        dup2(pipe_fds[1], 2);
        common::close_on_exec_from(3);  // the host's sockets and files stay with the host
        if (user.switch_user) {
            if (setgroups(user.groups.size(), user.groups.data()) != 0) child_fail("setgroups");
            if (setgid(user.gid) != 0) child_fail("setgid");
            if (setuid(user.uid) != 0) child_fail("setuid");
        }
        if (cwd != nullptr && chdir(cwd) != 0) child_fail("chdir to the working directory");
        execve(argv[0], argv.data(), envp.data());
        child_fail(argv[0]);
    }
    close(pipe_fds[1]);
    if (devnull >= 0) close(devnull);
    common::prefer_as_oom_victim(pid);  // a cell exhausting the memory limit goes before the host

    std::unique_ptr<KernelProcess> p(new KernelProcess());
    p->pid_ = pid;
    p->output_fd_ = pipe_fds[0];
    p->reader_ = std::thread([raw = p.get()] { raw->read_output_loop(); });
    return p;
}

KernelProcess::~KernelProcess() {
    terminate();
    stop_reader_ = true;
    if (reader_.joinable()) reader_.join();
    if (output_fd_ >= 0) close(output_fd_);
}

void KernelProcess::read_output_loop() {
    char buf[4096];
    while (!stop_reader_) {
        pollfd p{output_fd_, POLLIN, 0};
        const int r = poll(&p, 1, 200);
        if (r < 0 && errno != EINTR) return;
        if (r <= 0) continue;
        const ssize_t n = read(output_fd_, buf, sizeof buf);
        if (n == 0) return;  // every writer closed
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return;
        }
        std::lock_guard<std::mutex> lock(tail_mu_);
        tail_.append(buf, static_cast<size_t>(n));
        if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
    }
}

std::string KernelProcess::output_tail() const {
    std::lock_guard<std::mutex> lock(tail_mu_);
    return tail_.size() > kTailBytes ? tail_.substr(tail_.size() - kTailBytes) : tail_;
}

void KernelProcess::record_status(int status) {
    exited_ = true;
    if (WIFEXITED(status)) {
        exit_reason_ = "exited with status " + std::to_string(WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char *name = strsignal(sig);
        exit_reason_ = "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
    } else {
        exit_reason_ = "ended (wait status " + std::to_string(status) + ")";
    }
}

bool KernelProcess::leader_is_zombie() const {
    const auto stat = common::read_process_stat(pid_);
    return stat && stat->state == 'Z';
}

bool KernelProcess::alive() {
    if (exited_) return false;
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        record_status(status);
        return false;
    }
    if (r == 0 && leader_is_zombie()) {
        // Killed, but other threads still unwinding: waitpid cannot reap it yet. It is dead all the same
        // (a kernel whose main thread is gone serves nothing); a moment's wait tells its exit status.
        const common::ReapWait reap = common::wait_until_reapable(pid_, std::chrono::milliseconds(2000));
        if (reap.outcome == common::ReapWait::Reaped) {
            record_status(reap.status);
            return false;
        }
        exited_ = true;
        exit_reason_ = "exited (status unknown)";
        return false;
    }
    if (r < 0 && errno == ECHILD) {  // someone else reaped it: all we know is that it is gone
        if (kill(pid_, 0) != 0 && errno == ESRCH) {
            exited_ = true;
            exit_reason_ = "exited (status unknown)";
            return false;
        }
    }
    return true;
}

std::string KernelProcess::exit_reason() const { return exited_ ? exit_reason_ : std::string(); }

void KernelProcess::interrupt() {
    if (!exited_) kill(-pid_, SIGINT);
}

void KernelProcess::terminate(double grace_s) {
    if (pid_ <= 0) return;
    if (!alive()) {
        kill(-pid_, SIGKILL);  // leftovers of the group (shell commands the kernel started)
        return;
    }
    kill(-pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
    while (std::chrono::steady_clock::now() < deadline) {
        if (!alive()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(-pid_, SIGKILL);
    if (!exited_) {
        int status = 0;
        if (waitpid(pid_, &status, 0) == pid_) record_status(status);
        else {
            exited_ = true;
            exit_reason_ = "terminated";
        }
    }
}

}  // namespace actionhost::jupyter
