#include "sys/run_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

extern char **environ;

namespace actionhost::host {

int run_command(std::vector<std::string> argv, const CommandOptions &options) {
    if (argv.empty()) return -1;
    std::vector<char *> c;
    for (auto &a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (options.quiet) {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // the host's sockets stay with the host
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, c[0], &actions, nullptr, c.data(), environ);
    for (size_t i = 0; rc == ENOENT && argv[0].find('/') == std::string::npos && i < options.fallback_dirs.size(); ++i)
        rc = posix_spawn(&pid, (options.fallback_dirs[i] + "/" + argv[0]).c_str(), &actions, nullptr, c.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) return -1;
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace actionhost::host
