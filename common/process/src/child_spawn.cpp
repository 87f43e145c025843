// ChildProcess::spawn: the descriptors, program, directory and user of a new child, then posix_spawn (no
// copy of the parent) or, when the child must do what posix_spawn cannot, fork.
#include "actionhost/common/process/child_process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "actionhost/common/inherited_fds.hpp"
#include "actionhost/common/oom.hpp"
#include "lasting_thread.hpp"

extern char **environ;

namespace actionhost::common {

namespace {

constexpr const char *kDefaultSearchPath = "/usr/local/bin:/usr/bin:/bin";
// Mapped descriptors are moved through numbers from here up on their way to their targets (which must be
// below it).
constexpr int kMappedFloor = 256;

// What failed in a forked child before its exec, reported to the parent as a number (the child may
// only make async-signal-safe calls: no strings are built there).
enum Stage : int { kSetsid, kTerminal, kSetgroups, kSetgid, kSetuid, kChdir, kExec };
const char *stage_text(int stage) {
    switch (stage) {
        case kSetsid: return "setsid";
        case kTerminal: return "taking the terminal";
        case kSetgroups: return "setgroups";
        case kSetgid: return "setgid";
        case kSetuid: return "setuid";
        case kChdir: return "chdir";
        default: return "exec";
    }
}
struct ChildReport {
    int stage;
    int err;
};

[[noreturn]] void child_fail(int report_fd, int stage) {
    const ChildReport r{stage, errno};
    ssize_t ignored = write(report_fd, &r, sizeof r);
    (void)ignored;
    _exit(127);
}

void close_fd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Every descriptor made for a child, closed on every way out unless handed on.
struct Descriptors {
    int child[3] = {-1, -1, -1};   // what becomes the child's 0, 1, 2 (-1: nothing to put there)
    bool err_to_stdout = false;    // the child's 2 is a copy of its 1
    int parent[3] = {-1, -1, -1};  // our ends: stdin's write end, stdout's and stderr's read ends
    int terminal = -1;             // PTY: the child's side (also in child[]), the master in parent[1]
    ~Descriptors() {
        close_child_side();
        for (int &fd : parent) close_fd(fd);
    }
    void close_child_side() {
        for (int i = 0; i < 3; ++i)
            if (child[i] >= 0) {
                const int fd = child[i];
                for (int j = i; j < 3; ++j)
                    if (child[j] == fd) child[j] = -1;
                close(fd);
            }
        terminal = -1;
    }
};

// A descriptor at 0..2 (this process's own stdio was closed) would be overwritten by the child's dup2s.
int lift(int fd) {
    if (fd < 0 || fd > 2) return fd;
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return moved;
}

// The failure of system call `what`, with its errno.
auto errno_failure(const std::string &what) {
    const int err = errno;
    return fail(what + ": " + std::strerror(err), err);
}

Status open_pty(const SpawnSpec &spec, Descriptors &d) {
    winsize ws{};
    ws.ws_row = spec.rows;
    ws.ws_col = spec.cols;
    int master = -1, tty = -1;
    if (openpty(&master, &tty, nullptr, nullptr, &ws) != 0) return errno_failure("openpty");
    fcntl(master, F_SETFD, FD_CLOEXEC);
    fcntl(tty, F_SETFD, FD_CLOEXEC);
    // For a program: no echo (the command we type is not output), LF stays LF. Either way UTF-8 aware
    // line editing.
    termios t{};
    tcgetattr(tty, &t);
    if (!spec.human_terminal) {
        t.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHONL);
        t.c_oflag &= ~static_cast<tcflag_t>(ONLCR);
    }
    t.c_iflag |= IUTF8;
    tcsetattr(tty, TCSANOW, &t);
    d.parent[1] = master;
    d.terminal = lift(tty);
    for (int &c : d.child) c = d.terminal;
    if (d.terminal < 0) return errno_failure("openpty");
    return ok();
}

// Opens what stream `n` (0, 1, 2) of the child is connected to.
Status open_stream(int n, const Stream &s, Descriptors &d) {
    switch (s.kind) {
        case Stream::Inherit: return ok();
        case Stream::Stdout:
            if (n != 2) return fail("only stderr can go where stdout goes");
            d.err_to_stdout = true;
            return ok();
        case Stream::Null:
        case Stream::File: {
            const std::string path = s.kind == Stream::Null ? "/dev/null" : s.path;
            const int flags = n == 0 ? O_RDONLY : O_WRONLY | O_CREAT | (s.append ? O_APPEND : O_TRUNC);
            d.child[n] = lift(open(path.c_str(), flags | O_CLOEXEC, 0644));
            if (d.child[n] < 0) return errno_failure("cannot open " + path);
            return ok();
        }
        case Stream::Descriptor:
            if (s.fd < 0) return fail("stream " + std::to_string(n) + " is a descriptor, but none was given");
            d.child[n] = lift(fcntl(s.fd, F_DUPFD_CLOEXEC, 3));
            if (d.child[n] < 0) return errno_failure("cannot copy descriptor " + std::to_string(s.fd));
            return ok();
        case Stream::Pipe: {
            int p[2];
            if (pipe2(p, O_CLOEXEC) != 0) return errno_failure("pipe");
            d.child[n] = lift(n == 0 ? p[0] : p[1]);
            d.parent[n] = n == 0 ? p[1] : p[0];
            if (d.child[n] < 0) return errno_failure("pipe");
            return ok();
        }
    }
    return fail("unknown stream kind");
}

// Everything the child needs, prepared before any fork (between fork and exec only async-signal-safe
// calls happen: the parent is multithreaded).
struct Plan {
    std::string program;
    std::vector<std::string> args, envs;
    std::vector<char *> argv, envp;
    std::optional<UserSwitch> user;
    std::vector<std::string> dirs;  // tried in order; empty: stay where the parent is
};

std::vector<std::string> environment_of(const SpawnSpec &spec) {
    if (spec.env) return *spec.env;
    if (spec.identity) return spec.identity->env;
    std::vector<std::string> env;
    for (char **e = environ; e && *e; ++e) env.emplace_back(*e);
    return env;
}

Status make_plan(const SpawnSpec &spec, Plan &p) {
    if (spec.argv.empty()) return fail("no command");
    if (spec.mapped_fds.size() > 16) return fail("at most 16 mapped descriptors");
    for (const auto &[ours, theirs] : spec.mapped_fds)
        if (ours < 0 || theirs < 3 || theirs >= kMappedFloor) return fail("a mapped descriptor must go to a number from 3 to 255");
    p.args = spec.argv;
    p.envs = environment_of(spec);
    for (auto &a : p.args) p.argv.push_back(a.data());
    p.argv.push_back(nullptr);
    for (auto &e : p.envs) p.envp.push_back(e.data());
    p.envp.push_back(nullptr);

    p.program = spec.program.empty() ? spec.argv[0] : spec.program;
    if (p.program.find('/') == std::string::npos) {
        std::string path = spec.search_path.value_or("");
        if (!spec.search_path) {
            path = kDefaultSearchPath;
            for (const auto &e : p.envs)
                if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
        }
        const std::string found = find_on_path(p.program, path);
        if (found.empty()) return fail("command not found: " + p.program, ENOENT);
        p.program = found;
    } else if (access(p.program.c_str(), X_OK) != 0) {
        return errno_failure("cannot start " + p.program);
    }

    if (spec.identity) {
        if (spec.identity->switch_user) p.user = UserSwitch{spec.identity->uid, spec.identity->gid, spec.identity->groups};
        // A shell starts in its working directory, else its home, else / (as a login would).
        if (!spec.working_dir.empty()) p.dirs.push_back(spec.working_dir);
        if (!spec.identity->home.empty()) p.dirs.push_back(spec.identity->home);
        p.dirs.emplace_back("/");
    } else {
        p.user = spec.user;
        if (!spec.working_dir.empty()) p.dirs.push_back(spec.working_dir);
    }
    return ok();
}

// The child without a copy of the parent: glibc's posix_spawn is clone(CLONE_VM|CLONE_VFORK), so no
// page tables are copied and the parent's other threads take no copy-on-write faults afterwards (a fork
// here took ~4 ms of a host's start, with the listeners being set up beside it). Returns 0 or an errno.
int spawn_without_copy(const SpawnSpec &spec, const Plan &p, const Descriptors &d, pid_t &pid,
                       std::string &unusable_dir) {
    std::string terminal;
    if (spec.use_pty) {
        char name[128];
        if (const int e = ttyname_r(d.terminal, name, sizeof name); e != 0) return e;
        terminal = name;
    }
    // One chdir action only (a failing one fails the spawn): the first directory that can be entered.
    // None: `unusable_dir` names the first, for the error.
    std::string dir;
    int dir_errno = 0;
    for (const auto &candidate : p.dirs) {
        if (access(candidate.c_str(), X_OK) == 0) {
            dir = candidate;
            break;
        }
        if (dir_errno == 0) dir_errno = errno;
    }
    if (dir.empty() && !p.dirs.empty()) {
        unusable_dir = p.dirs.front();
        return dir_errno;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (spec.use_pty) {
        // Opened by name after setsid: it becomes the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, terminal.c_str(), O_RDWR, 0);
        posix_spawn_file_actions_adddup2(&actions, 0, 1);
        posix_spawn_file_actions_adddup2(&actions, 0, 2);
    } else {
        for (int n = 0; n < 3; ++n)
            if (d.child[n] >= 0) posix_spawn_file_actions_adddup2(&actions, d.child[n], n);
        if (d.err_to_stdout) posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (!dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, static_cast<short>((spec.new_session ? POSIX_SPAWN_SETSID : POSIX_SPAWN_SETPGROUP) |
                                                       POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));
    const int rc = posix_spawn(&pid, p.program.c_str(), &actions, &attr, p.argv.data(), p.envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

// What posix_spawn cannot do: switch user, die with the parent, keep or place chosen descriptors. Returns the
// pid, or why not (the failed child reaped).
Result<pid_t> spawn_by_fork(const SpawnSpec &spec, const Plan &p, const Descriptors &d) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        return errno_failure("pipe");
    }
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        auto failure = errno_failure("fork");
        close(report[0]);
        close(report[1]);
        return failure;
    }
    if (pid == 0) {
        if (spec.new_session ? setsid() < 0 : setpgid(0, 0) != 0) child_fail(report[1], kSetsid);
        if (spec.die_with_parent) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(127);  // the parent ended before the line above
        }
        if (spec.use_pty && ioctl(d.terminal, TIOCSCTTY, 0) < 0) child_fail(report[1], kTerminal);
        for (int n = 0; n < 3; ++n)
            if (d.child[n] >= 0) dup2(d.child[n], n);
        if (d.err_to_stdout) dup2(1, 2);
        // Mapped descriptors: first copied above every number involved (a source may sit at another's
        // target), close-on-exec, then put in place; dup2 leaves the targets open across the exec.
        int lifted[16];
        const size_t mapped = spec.mapped_fds.size() < 16 ? spec.mapped_fds.size() : 16;
        for (size_t i = 0; i < mapped; ++i) lifted[i] = fcntl(spec.mapped_fds[i].first, F_DUPFD_CLOEXEC, kMappedFloor);
        close_on_exec_from(3);  // report[1] is close-on-exec already: it reports until the exec
        for (int fd : spec.keep_fds) {
            const int flags = fcntl(fd, F_GETFD);
            if (flags >= 0) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
        }
        for (size_t i = 0; i < mapped; ++i)
            if (lifted[i] < 0 || dup2(lifted[i], spec.mapped_fds[i].second) < 0) child_fail(report[1], kExec);
        // Dispositions set to "ignore" and blocked masks survive exec: reset what the parent set.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        if (p.user) {
            if (setgroups(p.user->groups.size(), p.user->groups.data()) != 0) child_fail(report[1], kSetgroups);
            if (setgid(p.user->gid) != 0) child_fail(report[1], kSetgid);
            if (setuid(p.user->uid) != 0) child_fail(report[1], kSetuid);
        }
        // As the new user: a directory root may enter and the user may not is tried like a missing one.
        bool entered = p.dirs.empty();
        for (size_t i = 0; i < p.dirs.size() && !entered; ++i) entered = chdir(p.dirs[i].c_str()) == 0;
        if (!entered) child_fail(report[1], kChdir);
        execve(p.program.c_str(), p.argv.data(), p.envp.data());
        child_fail(report[1], kExec);
    }
    if (!spec.new_session) setpgid(pid, pid);  // also from here: no race with the child's own setpgid
    close(report[1]);
    ChildReport r{};
    ssize_t n;
    do {
        n = read(report[0], &r, sizeof r);
    } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == static_cast<ssize_t>(sizeof r)) {
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        std::string what = stage_text(r.stage);
        if (r.stage == kChdir) what += " to " + p.dirs.front();
        return fail("cannot start " + p.program + ": " + (r.stage == kExec ? "" : what + ": ") + std::strerror(r.err), r.err);
    }
    return pid;
}

}  // namespace

void ChildProcess::start_lasting_spawner() { start_lasting_thread(); }

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const SpawnSpec &spec) {
    Plan plan;
    if (auto planned = make_plan(spec, plan); !planned) return planned.as_failure();
    Descriptors d;  // its destructor closes what was opened, whatever fails below
    if (spec.use_pty) {
        if (auto opened = open_pty(spec, d); !opened) return opened.as_failure();
    } else {
        for (int n = 0; n < 3; ++n)
            if (auto opened = open_stream(n, n == 0 ? spec.in : n == 1 ? spec.out : spec.err, d); !opened)
                return opened.as_failure();
    }

    pid_t pid = -1;
    if (plan.user || spec.die_with_parent || !spec.keep_fds.empty() || !spec.mapped_fds.empty()) {
        // The kernel sends PR_SET_PDEATHSIG when the forking *thread* ends: a child spawned on a
        // short-lived thread would die with that thread. Such children are forked by a lasting one.
        Result<pid_t> forked = fail("not forked");
        auto fork_it = [&] { forked = spawn_by_fork(spec, plan, d); };
        if (spec.die_with_parent) run_on_lasting_thread(fork_it);
        else fork_it();
        if (!forked) return forked.as_failure();
        pid = forked.value();
    } else {
        std::string unusable_dir;
        if (const int rc = spawn_without_copy(spec, plan, d, pid, unusable_dir); rc != 0) {
            return fail("cannot start " + plan.program + ": " +
                            (unusable_dir.empty() ? "" : "chdir to " + unusable_dir + ": ") + std::strerror(rc),
                        rc);
        }
    }
    d.close_child_side();

    auto child = std::unique_ptr<ChildProcess>(new ChildProcess());
    child->pid_ = pid;
    if (spec.prefer_oom_victim) prefer_as_oom_victim(pid);
    if (spec.use_pty) {
        child->out_fd_ = child->in_fd_ = d.parent[1];
        d.parent[1] = -1;
    } else {
        std::swap(child->in_fd_, d.parent[0]);
        std::swap(child->out_fd_, d.parent[1]);
        std::swap(child->err_fd_, d.parent[2]);
    }
    for (int fd : {child->in_fd_, child->out_fd_, child->err_fd_})
        if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    child->pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (child->pidfd_ >= 0) fcntl(child->pidfd_, F_SETFD, FD_CLOEXEC);
    return child;
}

}  // namespace actionhost::common
