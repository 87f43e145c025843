#include "support/run_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

extern char **environ;

namespace actionhost::testing {

std::string sh_word(const std::string &text) {
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

ProcessResult run_process(const std::vector<std::string> &argv, double timeout_s, const std::vector<std::string> &extra_env) {
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> args = argv, envs;
    for (char **e = environ; *e; ++e) envs.push_back(*e);
    envs.insert(envs.end(), extra_env.begin(), extra_env.end());
    std::vector<char *> cargs, cenv;
    for (auto &a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    for (auto &e : envs) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    pid_t pid;
    const int rc = posix_spawnp(&pid, cargs[0], &fa, nullptr, cargs.data(), cenv.data());
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    ProcessResult r;
    if (rc != 0) {
        close(pipefd[0]);
        r.output = std::string("spawn failed: ") + std::strerror(rc);
        return r;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[8192];
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            r.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        pollfd p{pipefd[0], POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
        const ssize_t n = read(pipefd[0], buf, sizeof buf);
        if (n <= 0) break;
        r.output.append(buf, static_cast<size_t>(n));
    }
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    return r;
}

}  // namespace actionhost::testing
