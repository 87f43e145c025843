#include "actionhost/runtime_support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/syscall.h>
#include <thread>

#include "actionhost/common/process/child_process.hpp"
#include "actionhost/common/process_state.hpp"
#include "actionhost/common/user_entry.hpp"

#include "actionhost/runtime_support/backend.hpp"
#include "actionhost/runtime_support/directory_watch.hpp"

extern char **environ;

namespace actionhost::runtime_support {

pid_t spawn_process(const SpawnOptions &o) {
    common::SpawnSpec spec;
    spec.argv = o.argv;
    spec.env.emplace();
    for (const auto &[k, v] : o.env) spec.env->push_back(k + "=" + v);
    spec.working_dir = o.cwd;
    spec.use_pty = false;
    spec.in = o.stdin_path.empty() ? common::Stream::null() : common::Stream::file(o.stdin_path);
    spec.out = o.log_path.empty() ? common::Stream::null() : common::Stream::file(o.log_path);
    spec.err = common::Stream::to_stdout();
    spec.new_session = false;  // a process group of its own, in the caller's session
    spec.die_with_parent = o.die_with_parent;
    spec.keep_fds = o.keep_fds;
    spec.prefer_oom_victim = false;  // a host or a helper of the client, not a command of the agent's
    auto child = common::ChildProcess::spawn(spec);
    if (!child) throw std::runtime_error(child.error().message);
    return child.value()->release();  // the caller reaps it (try_reap, stop_process_group) or keeps it alive
}

void start_lasting_spawner() { common::ChildProcess::start_lasting_spawner(); }

std::optional<int> try_reap(pid_t pid) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno == ECHILD) return process_exists(pid) ? std::nullopt : std::optional<int>(0);
    return std::nullopt;
}

std::string temp_root() {
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

std::string make_temp_dir(const std::string &prefix) {
    std::string tmpl = temp_root() + "/" + prefix + "XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory " + tmpl);
    return tmpl;
}

ScopedTempDir::~ScopedTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);  // best effort: a destructor reports nothing
}

bool process_exists(pid_t pid) {
    if (pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM)) return false;
    const auto stat = actionhost::common::read_process_stat(pid);
    return stat && stat->state != 'Z' && stat->state != 'X';
}

namespace {

int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

std::chrono::steady_clock::time_point deadline_in(double seconds) {
    return std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

// Waits for the end of the process behind `pidfd` (readable once its last thread is gone, reaped or not).
bool wait_pidfd(int pidfd, std::chrono::steady_clock::time_point deadline) {
    for (int i = 0; i < 1000; ++i) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{pidfd, POLLIN, 0};
        const int n = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
        if (n > 0) return true;
        if (n == 0 || (n < 0 && errno != EINTR)) return false;
    }
    return false;
}

// Without pidfds (an old kernel): looks every 2 ms.
bool poll_for_exit(pid_t pid, std::chrono::steady_clock::time_point deadline) {
    for (int i = 0; i < 10'000'000 && process_exists(pid); ++i) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

}  // namespace

bool wait_for_exit(pid_t pid, double timeout_s) {
    const auto deadline = deadline_in(timeout_s);
    const int pidfd = open_pidfd(pid);
    if (pidfd < 0) return errno == ESRCH || poll_for_exit(pid, deadline);  // ESRCH: reaped already
    const bool ended = wait_pidfd(pidfd, deadline);
    ::close(pidfd);
    return ended;
}

bool signal_and_wait(const ProcessIdentity &id, int sig, double timeout_s) {
    const auto deadline = deadline_in(timeout_s);
    // The pidfd pins the process: checked once, every signal through it reaches that process only.
    const int pidfd = open_pidfd(id.pid);
    if (pidfd < 0) {
        if (errno == ESRCH || !is_running(id)) return true;
        kill(id.pid, sig);
        kill(id.pid, SIGCONT);
        return poll_for_exit(id.pid, deadline);
    }
    bool ended = !is_running(id);
    if (!ended) {
        syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0);
        syscall(SYS_pidfd_send_signal, pidfd, SIGCONT, nullptr, 0);
        ended = wait_pidfd(pidfd, deadline);
    }
    ::close(pidfd);
    return ended;
}

void stop_process_group(pid_t pgid, double grace_s) {
    if (pgid <= 0) return;
    kill(-pgid, SIGTERM);
    kill(-pgid, SIGCONT);
    if (!wait_for_exit(pgid, grace_s)) {
        kill(-pgid, SIGKILL);
        wait_for_exit(pgid, 5.0);
    }
    waitpid(pgid, nullptr, WNOHANG);  // our child: reaped now; anyone else's: ECHILD
    kill(-pgid, SIGKILL);  // stragglers of the group (background jobs of the shell)
}

const std::string &current_boot_id() {
    static const std::string id = [] {
        std::ifstream in("/proc/sys/kernel/random/boot_id");
        std::string text;
        in >> text;
        return text;
    }();
    return id;
}

std::optional<ProcessIdentity> identify_process(pid_t pid) {
    if (!process_exists(pid)) return std::nullopt;
    const auto stat = actionhost::common::read_process_stat(pid);
    if (!stat) return std::nullopt;
    return ProcessIdentity{pid, stat->start_ticks, current_boot_id()};
}

bool is_running(const ProcessIdentity &id) {
    if (id.boot_id != current_boot_id() || !process_exists(id.pid)) return false;
    const auto stat = actionhost::common::read_process_stat(id.pid);
    return stat && stat->start_ticks == id.start_ticks;
}

std::map<std::string, std::string> process_environment() {
    std::map<std::string, std::string> env;
    for (char **e = environ; e && *e; ++e) {
        std::string kv = *e;
        auto eq = kv.find('=');
        if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return env;
}

std::string file_tail(const std::string &path, size_t max_bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "";
    std::ostringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    return text.size() > max_bytes ? text.substr(text.size() - max_bytes) : text;
}

int wait_port_file(const std::string &path, pid_t pid, double timeout_s, const std::string &log_path) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    // The host renames the file into place: a watch of its directory wakes us at that moment instead of
    // a poll interval later (a backed-off poll used to add up to 20 ms to every start). Sleeping polls
    // remain the fallback when inotify is unavailable.
    const size_t slash = path.find_last_of('/');
    const DirectoryWatch watch(slash == std::string::npos ? "." : path.substr(0, slash));
    auto backoff = std::chrono::microseconds(200);
    for (int i = 0; i < 1000000; ++i) {
        const uint64_t seen = watch.generation();  // before looking: an entry made after the look ends the wait
        std::ifstream in(path);
        int port = 0;
        if (in >> port && port > 0) return port;
        if (auto status = try_reap(pid)) {
            std::string how = WIFEXITED(*status) ? "exited with status " + std::to_string(WEXITSTATUS(*status))
                                                 : "was killed by signal " + std::to_string(WTERMSIG(*status));
            throw std::runtime_error("the host " + how + " before listening. Its log:\n" + file_tail(log_path));
        }
        if (std::chrono::steady_clock::now() >= deadline)
            throw Timeout("the host did not report its port within " + std::to_string(static_cast<int>(timeout_s)) +
                          " s. Its log:\n" + file_tail(log_path));
        if (watch.active()) {
            watch.wait(seen, std::chrono::milliseconds(50));  // also wakes to notice a host that died first
        } else {
            std::this_thread::sleep_for(backoff);  // no inotify: a backed-off poll, as before the watch
            backoff = std::min(backoff * 2, std::chrono::microseconds(5000));
        }
    }
    throw Timeout("the host did not report its port");
}

std::string user_name(uid_t uid) {
    const auto user = common::user_by_uid(uid);
    return user ? user->name : std::to_string(uid);
}

}  // namespace actionhost::runtime_support
