// ah-sandbox-init: runs one command (the actionhost host) in fresh user, mount, pid, ipc, uts and
// (unless --network) net namespaces, with cgroup limits and a seccomp filter. See docs/runtimes.md.
//
//   outside (this process, "P")              inside (clone child = pid 1 of the new pid namespace)
//   cgroups created; unix socket bound  ──▶   waits until P wrote its uid/gid maps
//   clone(NEW*) → child joins the cgroups     hostname, loopback up, new root, pivot_root
//   writes uid_map/gid_map, says go           forks the command: seccomp, exec
//   waits; SIGTERM → SIGKILL pid 1            event loop: reap children, relay the unix socket
//   removes cgroups and the socket            exits with the command's status (namespace dies)
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cgroups.hpp"
#include "forwarder.hpp"
#include "mounts.hpp"
#include "options.hpp"
#include "seccomp_filter.hpp"

namespace {

using namespace sandbox;

struct ChildContext {
    const Options *options;
    int go_fd;      // read end: P writes one byte once the id maps are in place
    int listen_fd;  // the unix socket to relay, or -1
};

volatile sig_atomic_t g_child = 0;

void on_terminate(int) {
    if (g_child > 0) kill(g_child, SIGKILL);  // pid 1 gone → the kernel kills the whole namespace
}

bool write_file(const std::string &path, const std::string &text) {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

[[noreturn]] void die(const std::string &msg) {
    std::fprintf(stderr, "ah-sandbox-init: %s\n", msg.c_str());
    _exit(125);
}

int child_main(void *arg) {
    auto *ctx = static_cast<ChildContext *>(arg);
    const Options &o = *ctx->options;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char go = 0;
    if (read(ctx->go_fd, &go, 1) != 1 || go != 'g') _exit(125);  // P died or refused
    close(ctx->go_fd);
    try {
        if (sethostname(o.hostname.data(), o.hostname.size()) != 0) throw std::runtime_error("sethostname failed");
        if (!o.network) loopback_up();
        build_root(o);
    } catch (const std::exception &e) {
        die(std::string("sandbox setup failed: ") + e.what());
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, nullptr);
    pid_t main_pid = fork();
    if (main_pid < 0) die(std::string("fork: ") + std::strerror(errno));
    if (main_pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        if (ctx->listen_fd >= 0) close(ctx->listen_fd);
        setsid();
        write_file("/proc/self/oom_score_adj", "0");  // pid 1 is protected from the OOM killer, not the workload
        if (chdir(o.workspace_target.c_str()) != 0) chdir("/");
        if (o.seccomp) {
            try {
                install_seccomp_filter();
            } catch (const std::exception &e) {
                die(e.what());
            }
        }
        std::vector<char *> argv;
        for (const auto &a : o.command) argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        die("cannot run " + o.command[0] + ": " + std::strerror(errno));
    }
    int status = run_event_loop(main_pid, ctx->listen_fd, o.forward_port);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

int make_listener(const std::string &path) {
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) throw std::runtime_error("socket path too long: " + path);
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    unlink(path.c_str());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    mode_t old = umask(0177);  // only the caller's uid may connect
    int rc = bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
    umask(old);
    if (rc < 0) throw std::runtime_error("bind " + path + ": " + std::strerror(errno));
    if (listen(fd, 256) < 0) throw std::runtime_error(std::string("listen: ") + std::strerror(errno));
    return fd;
}

}  // namespace

int main(int argc, char **argv) {
    Options o;
    try {
        o = parse_options(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ah-sandbox-init: %s\nUsage: ah-sandbox-init --root-mount DIR [--workspace DIR] "
                             "[--workspace-target PATH] [--socket PATH --forward-port N] [--cgroup NAME --memory-mb N "
                             "--pids N --cpus F] [--network] [--no-seccomp] [--ro-bind PATH] [--rw-bind OUT:IN] "
                             "[--home PATH] -- COMMAND...\n",
                     e.what());
        return 125;
    }
    std::unique_ptr<Cgroup> cgroup;
    if (!o.cgroup_name.empty()) {
        cgroup = std::make_unique<Cgroup>(o.cgroup_name, Limits{o.memory_mb, o.pids, o.cpus});
        for (const auto &w : cgroup->warnings()) std::fprintf(stderr, "ah-sandbox-init: warning: %s\n", w.c_str());
    }
    int listen_fd = -1;
    try {
        if (!o.socket_path.empty()) listen_fd = make_listener(o.socket_path);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ah-sandbox-init: %s\n", e.what());
        return 125;
    }
    write_file("/proc/self/oom_score_adj", "-1000");  // inherited by pid 1; best effort (needs privilege)

    int go[2];
    if (pipe2(go, O_CLOEXEC) != 0) return 125;
    ChildContext ctx{&o, go[0], listen_fd};
    const size_t stack_size = 1 << 20;
    std::unique_ptr<char[]> stack(new char[stack_size]);
    int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
    if (!o.network) flags |= CLONE_NEWNET;
    struct sigaction sa {};
    sa.sa_handler = on_terminate;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    pid_t child = clone(child_main, stack.get() + stack_size, flags, &ctx);
    if (child < 0) {
        std::fprintf(stderr, "ah-sandbox-init: clone: %s\n", std::strerror(errno));
        return 125;
    }
    g_child = child;
    close(go[0]);
    if (cgroup) cgroup->join(child);
    // Identity maps: as root all ids (files keep their owners); otherwise only the caller's own ids.
    std::string proc = "/proc/" + std::to_string(child);
    bool mapped;
    if (geteuid() == 0) {
        mapped = write_file(proc + "/uid_map", "0 0 4294967295\n") && write_file(proc + "/gid_map", "0 0 4294967295\n");
    } else {
        std::string uid = std::to_string(geteuid()), gid = std::to_string(getegid());
        mapped = write_file(proc + "/setgroups", "deny") && write_file(proc + "/uid_map", uid + " " + uid + " 1\n") &&
                 write_file(proc + "/gid_map", gid + " " + gid + " 1\n");
    }
    if (!mapped) {
        std::fprintf(stderr, "ah-sandbox-init: cannot write the user namespace id maps: %s\n", std::strerror(errno));
        kill(child, SIGKILL);
    } else {
        (void)!write(go[1], "g", 1);
    }
    close(go[1]);
    if (listen_fd >= 0) close(listen_fd);  // pid 1 holds its copy
    int status = 0;
    for (int i = 0; i < 1000000; ++i) {
        if (waitpid(child, &status, 0) == child) break;
        if (errno != EINTR) break;
    }
    if (cgroup) cgroup->remove(5.0);
    if (!o.socket_path.empty()) unlink(o.socket_path.c_str());
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
