#include "vscode_test_util.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/proc_file.hpp"

extern char **environ;

namespace actionhost::testing::vscode {

PortHolder::PortHolder() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(fd_, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || ::listen(fd_, 4) != 0)
        throw std::runtime_error("PortHolder: bind/listen failed");
    socklen_t len = sizeof sa;
    ::getsockname(fd_, reinterpret_cast<sockaddr *>(&sa), &len);
    port_ = ntohs(sa.sin_port);
}

PortHolder::~PortHolder() {
    if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> installed_code_server() {
    std::vector<std::string> candidates;
    if (const char *p = std::getenv("ACTIONHOST_CODE_SERVER_PATH")) candidates.push_back(p);
    if (const char *p = std::getenv("ACTIONHOST_CODE_SERVER_PREFIX")) candidates.push_back(std::string(p) + "/bin/code-server");
    candidates.push_back("/opt/actionhost/code-server/bin/code-server");
    if (const char *c = std::getenv("XDG_CACHE_HOME")) {
        candidates.push_back(std::string(c) + "/actionhost/code-server/bin/code-server");
    } else if (const char *h = std::getenv("HOME")) {
        candidates.push_back(std::string(h) + "/.cache/actionhost/code-server/bin/code-server");
    }
    for (const auto &c : candidates) {
        if (::access(c.c_str(), X_OK) == 0) return c;
    }
    return std::nullopt;
}

namespace {

std::map<pid_t, pid_t> parents() {
    std::map<pid_t, pid_t> out;
    DIR *d = ::opendir("/proc");
    if (!d) return out;
    while (dirent *e = ::readdir(d)) {
        char *end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end) continue;
        std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
        std::string line;
        if (!std::getline(f, line)) continue;
        auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 1));
        char state;
        long ppid;
        rest >> state >> ppid;
        out[static_cast<pid_t>(pid)] = static_cast<pid_t>(ppid);
    }
    ::closedir(d);
    return out;
}

}  // namespace

std::vector<pid_t> descendants(pid_t root) {
    auto table = parents();
    std::vector<pid_t> out{root};
    for (size_t i = 0; i < out.size() && out.size() < 10000; ++i) {
        for (const auto &[pid, ppid] : table) {
            if (ppid == out[i]) out.push_back(pid);
        }
    }
    out.erase(out.begin());
    return out;
}

void kill_and_wait(const std::vector<pid_t> &pids) {
    for (pid_t p : pids) ::kill(p, SIGKILL);
    for (int i = 0; i < 100; ++i) {
        bool any = false;
        for (pid_t p : pids) any = any || running(p);
        if (!any) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::string cmdline(pid_t pid) {
    std::string s = read_proc_file("/proc/" + std::to_string(pid) + "/cmdline");
    for (char &c : s) {
        if (c == '\0') c = ' ';
    }
    return s;
}

std::vector<pid_t> descendants_matching(pid_t root, const std::string &needle) {
    std::vector<pid_t> out;
    for (pid_t p : descendants(root)) {
        if (cmdline(p).find(needle) != std::string::npos) out.push_back(p);
    }
    return out;
}

bool running(pid_t pid) {
    if (::kill(pid, 0) != 0) return false;
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(f, line)) return false;
    auto close = line.rfind(')');
    return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

RunResult run_command(const std::vector<std::string> &argv, double timeout_s) {
    int out_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    std::vector<char *> c;
    for (const auto &a : argv) c.push_back(const_cast<char *>(a.c_str()));
    c.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, c[0], &fa, &attr, c.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(out_pipe[1]);
    RunResult r;
    if (rc != 0) {
        ::close(out_pipe[0]);
        return r;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[65536];
    bool timed_out = false;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{out_pipe[0], POLLIN, 0};
        int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 500)));
        if (n <= 0) continue;
        ssize_t got = ::read(out_pipe[0], buf, sizeof buf);
        if (got <= 0) break;
        r.out.append(buf, static_cast<size_t>(got));
    }
    ::close(out_pipe[0]);
    if (timed_out) ::kill(-pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    // Whatever the command left behind in its group (chromium's helpers) goes with it.
    ::kill(-pid, SIGKILL);
    r.status = timed_out ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return r;
}

bool looks_like_uuid4(const std::string &s) {
    static const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    return std::regex_match(s, re);
}

}  // namespace actionhost::testing::vscode
