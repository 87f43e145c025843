#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include <actionhost/common/inherited_fds.hpp>

namespace actionhost::mcp {
namespace {

std::string resolve(const std::string &program, const std::vector<std::string> &env) {
    if (program.find('/') != std::string::npos) return program;
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    for (const auto &e : env)
        if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
        if (dir.empty()) dir = ".";
        const std::string candidate = dir + "/" + program;
        struct stat st{};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return "";
}

void close_fd(int &fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

std::string status_text(int status) {
    if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
}

}  // namespace

std::unique_ptr<ChildProcess> ChildProcess::spawn(const std::vector<std::string> &argv_in,
                                                  const std::vector<std::string> &env, const std::string &cwd,
                                                  std::string &error) {
    if (argv_in.empty()) {
        error = "no command";
        return nullptr;
    }
    const std::string exe = resolve(argv_in[0], env);
    if (exe.empty()) {
        error = "command not found: " + argv_in[0];
        return nullptr;
    }
    // Everything the child needs is prepared before fork: between fork and exec only async-signal-safe calls.
    std::vector<char *> argv, envp;
    for (const auto &a : argv_in) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto &e : env) envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);
    int in[2], out[2], err[2], status_pipe[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return nullptr;
    }
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        for (int fd : {in[0], in[1]}) ::close(fd);
        return nullptr;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], status_pipe[0], status_pipe[1]}) ::close(fd);
        return nullptr;
    }
    if (pid == 0) {
        ::setpgid(0, 0);  // the group is the handle for stopping everything the server starts
        // No PR_SET_PDEATHSIG: it fires when the forking *thread* ends, and servers are started from
        // short-lived threads. The plugin stops its children at shutdown instead.
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int s = 1; s < NSIG; ++s)
            if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
        ::dup2(in[0], STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        ::dup2(err[1], STDERR_FILENO);
        common::close_on_exec_from(3);  // the host's sockets and files stay with the host
        int e = 0;
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
            e = errno;
        } else {
            ::execve(exe.c_str(), argv.data(), envp.data());
            e = errno;
        }
        ssize_t w = ::write(status_pipe[1], &e, sizeof e);
        (void)w;
        ::_exit(127);
    }
    for (int fd : {in[0], out[1], err[1], status_pipe[1]}) ::close(fd);
    int child_errno = 0;
    ssize_t n;
    do {
        n = ::read(status_pipe[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    ::close(status_pipe[0]);
    if (n == static_cast<ssize_t>(sizeof child_errno)) {
        ::waitpid(pid, nullptr, 0);
        for (int fd : {in[1], out[0], err[0]}) ::close(fd);
        error = "cannot start " + exe + " in " + cwd + ": " + std::strerror(child_errno);
        return nullptr;
    }
    std::unique_ptr<ChildProcess> p(new ChildProcess());
    p->pid_ = pid;
    p->in_ = in[1];
    p->out_ = out[0];
    p->err_ = err[0];
    return p;
}

ChildProcess::~ChildProcess() {
    stop();
    close_fd(out_);
    close_fd(err_);
}

std::optional<std::string> ChildProcess::exit_status(std::chrono::milliseconds wait) {
    if (status_) return status_;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) return status_ = status_text(status);
        if (r < 0) return status_ = "exited";  // reaped elsewhere
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
    close_fd(in_);
    if (pid_ <= 0) return;
    if (!exit_status(grace)) {
        ::kill(-pid_, SIGTERM);
        if (!exit_status(grace)) {
            ::kill(-pid_, SIGKILL);
            exit_status(std::chrono::milliseconds(5000));
        }
    }
    // The server has exited; whatever it left in its group goes too.
    ::kill(-pid_, SIGKILL);
}

}  // namespace actionhost::mcp
