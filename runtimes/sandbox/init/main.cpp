// ah-sandbox-init: runs one command (the actionhost host) in fresh user, mount, pid, ipc, uts, cgroup
// and (unless --network) net namespaces, with cgroup limits, a capability bounding set, seccomp and no
// id that is privileged on the machine. The boundary it draws is described in docs/security.md.
//
//   outside (this process, "P")                    inside (clone child = pid 1 of the new pid namespace)
//   ids chosen; workspace handed over if root's;   waits until P wrote its uid/gid maps
//   cgroups created; unix socket bound       ──▶   cgroup namespace; takes the machine's trees (creator's
//   clone(NEW*) → child joins the cgroups          ids), then becomes the sandbox's root/user and builds
//   writes uid_map/gid_map, says go                the root: /etc view, scratch tmpfs, /proc and /sys
//   supervises (supervisor.hpp): SIGTERM or its    views; pivot_root; bounding set cut to Docker's
//   owner gone → SIGKILL pid 1; removes cgroups    forks the command (no_new_privs, seccomp, exec), then
//                                                  drops every capability, becomes non-dumpable, loads
//                                                  its own filter; event loop: reap, relay the socket
#include <fcntl.h>
#include <malloc.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <strings.h>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <actionhost/common/user_entry.hpp>
#include <actionhost/lifetime/lifetime_keeper.hpp>

#include "address_watch.hpp"
#include "audit_sink.hpp"
#include "cgroups.hpp"
#include "control_server.hpp"
#include "self_cleanup.hpp"
#include "disk_mount.hpp"
#include "forwarder.hpp"
#include "id_map.hpp"
#include "idmapped_workspace.hpp"
#include "options.hpp"
#include "output_relay.hpp"
#include "privileges.hpp"
#include "root_layout.hpp"
#include "seccomp_filter.hpp"
#include "socket_activity.hpp"
#include "supervisor.hpp"
#include "user_net.hpp"
#include "workspace_dir.hpp"
#include "workspace_handover.hpp"

namespace {

using namespace sandbox;

struct ChildContext {
    const Options *options;
    const std::vector<std::string> *command_env;  // set for the main process only, before its exec
    const RootPlan *plan;
    bool switch_ids;  // the creator's ids are not mapped: take the sandbox user's (root callers)
    int go_fd;        // read end: P writes "g" once the id maps are in place, "j" once it has joined the cgroups
    int listen_fd;    // the unix socket to relay, or -1
    int ports_fd;     // the ports socket (forwarder.hpp), or -1
    int out_fd;       // write end of the output pipe: the sandbox's stdout and stderr (output_relay.hpp)
    int out_read_fd;  // its read end, P's alone
    long rlimit_tasks;  // RLIMIT_NPROC of the main process (0: none; the pids cgroup limits it)
    int outside_fds[4];  // the run directory's lock, the control socket, the cgroup creation lock, the requests socket: the machine's
    const std::vector<int> *join_fds;  // the groups' files pid 1 moves itself in with (Cgroup::open_self_join_files)
    int audit_fd;       // the host's end of the audit channel (audit_sink.hpp), or -1
    int audit_read_fd;  // P's end: never inside
};

bool write_file(const std::string &path, const std::string &text) {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

// The sandbox's own network namespace: no socket's buffers may grow past 1 MiB each way (the
// machine's default lets a receive buffer reach 32 MiB; 45 loopback pairs then held 528 MiB). A sandbox's
// TCP peers are on its loopback or, with user-mode networking, one hop away: a 1 MiB window is plenty. Per
// namespace since Linux 4.15, written as the namespace's root before the root is assembled. The memory
// cgroup's TCP limit bounds their sum (Limits::tcp_memory_mb); this bounds each, for callers without
// cgroups too.
void bound_socket_buffers() {
    for (const char *setting : {"/proc/sys/net/ipv4/tcp_rmem", "/proc/sys/net/ipv4/tcp_wmem"})
        if (!write_file(setting, std::string(setting).find("rmem") != std::string::npos ? "4096 131072 1048576" : "4096 16384 1048576"))
            std::fprintf(stderr, "ah-sandbox-init: warning: cannot bound %s\n", setting);
}

// Ping without CAP_NET_RAW (which a sandbox on the internet does not have: privileges.hpp): ICMP echo
// through datagram sockets, a setting of the sandbox's own network namespace. Its range must be of group
// ids the user namespace maps: the gid map's extent that holds `gid` (the sandbox's user's group).
void allow_ping_sockets(gid_t gid) {
    std::ifstream map("/proc/self/gid_map");
    unsigned long inside = 0, outside = 0, count = 0;
    std::string range;
    while (map >> inside >> outside >> count)
        if (count > 0 && gid >= inside && gid - inside < count) range = std::to_string(inside) + " " + std::to_string(inside + count - 1);
    if (range.empty() || !write_file("/proc/sys/net/ipv4/ping_group_range", range))
        std::fprintf(stderr, "ah-sandbox-init: warning: cannot allow ping sockets (ping needs them here)\n");
}

// Resource limits of every process of the sandbox, as nsjail sets them: no core files (a crash would
// write its memory into the workspace), the largest file a process may write, and, when asked, the
// address space. Limits a process may lower but not raise (hard = soft).
void set_resource_limits(const Options &o) {
    const rlimit none{0, 0};
    setrlimit(RLIMIT_CORE, &none);
    if (o.max_file_mb > 0) {
        const rlim_t bytes = static_cast<rlim_t>(o.max_file_mb) << 20;
        const rlimit fsize{bytes, bytes};
        setrlimit(RLIMIT_FSIZE, &fsize);
    }
    if (o.address_space_mb > 0) {
        const rlim_t bytes = static_cast<rlim_t>(o.address_space_mb) << 20;
        const rlimit as{bytes, bytes};
        setrlimit(RLIMIT_AS, &as);
    }
}

[[noreturn]] void die(const std::string &msg) {
    std::fprintf(stderr, "ah-sandbox-init: %s\n", msg.c_str());
    _exit(125);
}

// Root of the sandbox, with no supplementary group of the caller's: for a root caller those would be
// the machine's groups (root's among them), kept across the user namespace unless dropped here.
void become_sandbox_root() {
    if (setgroups(0, nullptr) != 0) throw std::runtime_error(std::string("setgroups: ") + std::strerror(errno));
    if (setresgid(0, 0, 0) != 0) throw std::runtime_error(std::string("setresgid: ") + std::strerror(errno));
    if (setresuid(0, 0, 0) != 0) throw std::runtime_error(std::string("setresuid: ") + std::strerror(errno));
}

int child_main(void *arg) {
    auto *ctx = static_cast<ChildContext *>(arg);
    const Options &o = *ctx->options;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char go = 0;
    if (read(ctx->go_fd, &go, 1) != 1 || go != 'g') _exit(125);  // P died or refused
    // Into the sandbox's cgroups before anything else; the creation lock (an outside fd) is let go after.
    std::string not_joined;
    for (int fd : *ctx->join_fds) {
        if (!join_self(fd)) not_joined = std::strerror(errno);
        close(fd);
    }
    for (int fd : ctx->outside_fds)
        if (fd >= 0) close(fd);
    if (ctx->audit_read_fd >= 0) close(ctx->audit_read_fd);
    // From here on everything the sandbox prints goes through P's bounded relay, never to a file.
    dup2(ctx->out_fd, STDOUT_FILENO);
    dup2(ctx->out_fd, STDERR_FILENO);
    close(ctx->out_fd);
    close(ctx->out_read_fd);
    if (!not_joined.empty()) std::fprintf(stderr, "ah-sandbox-init: warning: cannot join the sandbox's cgroups: %s\n", not_joined.c_str());
    try {
        if (sethostname(o.hostname.data(), o.hostname.size()) != 0) throw std::runtime_error("sethostname failed");
        if (o.network_mode != "host") {
            loopback_up();
            bound_socket_buffers();
        }
        if (o.network_mode == "internet") allow_ping_sockets(o.gid);
        MachineTrees trees = take_machine_trees(*ctx->plan);
        // The host runs as the sandbox's root; it switches to the sandbox's user for commands itself.
        if (ctx->switch_ids) become_sandbox_root();
        assemble_root(*ctx->plan, std::move(trees));
        if (ctx->plan->workspace_mount >= 0) close(ctx->plan->workspace_mount);  // attached: a copy was consumed
        // The groups P moves us into (a v2 group) are joined too once it says "joined" (or it died and
        // closed the pipe): they become this namespace's root ("/") before anything is forked.
        if (read(ctx->go_fd, &go, 1) != 1 || go != 'j') _exit(125);
        close(ctx->go_fd);
        if (unshare(CLONE_NEWCGROUP) != 0) throw std::runtime_error(std::string("cgroup namespace: ") + std::strerror(errno));
        limit_bounding_set(ctx->plan->workspace_mount < 0, o.network_mode != "internet");
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
        if (ctx->ports_fd >= 0) close(ctx->ports_fd);
        setsid();
        // Where no pids cgroup could be made (an unprivileged caller), the task limit as an rlimit:
        // counted per user namespace, it never touches the caller's other processes.
        if (ctx->rlimit_tasks > 0) {
            const rlimit tasks{static_cast<rlim_t>(ctx->rlimit_tasks), static_cast<rlim_t>(ctx->rlimit_tasks)};
            setrlimit(RLIMIT_NPROC, &tasks);
        }
        set_resource_limits(o);
        // The host's end of the audit channel crosses this one exec (the host marks it close-on-exec
        // again at once, and takes the variable out of its environment): no other process inherits it.
        if (ctx->audit_fd >= 0) {
            fcntl(ctx->audit_fd, F_SETFD, 0);
            setenv("ACTIONHOST_AUDIT_FD", std::to_string(ctx->audit_fd).c_str(), 1);
        }
        for (const auto &kv : *ctx->command_env) {
            const size_t eq = kv.find('=');
            setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
        }
        if (chdir(o.workspace_target.c_str()) != 0 && chdir("/") != 0) die("cannot enter a working directory");
        try {
            install_seccomp_filter(o.seccomp ? FilterScope::Full : FilterScope::ModeBitsOnly);
        } catch (const std::exception &e) {
            die(e.what());
        }
        std::vector<char *> argv;
        for (const auto &a : o.command) argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        die("cannot run " + o.command[0] + ": " + std::strerror(errno));
    }
    if (ctx->audit_fd >= 0) close(ctx->audit_fd);  // the host's alone
    try {
        lock_down_pid1();
        install_seccomp_filter();
    } catch (const std::exception &e) {
        kill(main_pid, SIGKILL);
        die(std::string("cannot lock pid 1 down: ") + e.what());
    }
    // What the setup allocated and freed goes back to the machine: pid 1 idles for the sandbox's life,
    // and a thousand sandboxes hold a thousand copies of whatever it keeps.
    malloc_trim(0);
    int status = run_event_loop(main_pid, ctx->listen_fd, o.forward_port, ctx->ports_fd);
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

// The machine's own trees are never a workspace: mounted read-write and, for a root caller, handed to
// the sandbox's ids, they would be the machine given away. Compared by identity, so no name of the
// directory (a link to it, a bind mount of it) gets past.
void refuse_system_directory(const DirIdentity &workspace, const std::string &path) {
    static const char *const kSystemDirs[] = {"/",     "/bin",  "/boot", "/dev",  "/etc",   "/home", "/lib",  "/lib32",
                                              "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc", "/root", "/run",
                                              "/sbin", "/srv",  "/sys",  "/tmp",  "/usr",   "/var"};
    for (const char *dir : kSystemDirs) {
        struct stat st{};
        if (stat(dir, &st) == 0 && DirIdentity{st.st_dev, st.st_ino} == workspace)
            throw std::invalid_argument("refusing " + path + " as a workspace: it is the system directory " + dir);
    }
}

// The id maps for this start; for a root caller the workspace (`workspace_fd`, opened once by
// WorkspaceDir) and the read-write binds are first made the sandbox user's (see id_map.hpp and
// workspace_handover.hpp).
IdMaps choose_ids(const Options &o, int workspace_fd, int *idmapped_workspace_fd) {
    IdRequest r{geteuid(), getegid(), o.uid, o.gid, geteuid(), getegid()};
    if (r.caller_uid == 0) {
        r.uid_base = subordinate_base("/etc/subuid", "actionhost", kDefaultIdBase);
        r.gid_base = subordinate_base("/etc/subgid", "actionhost", kDefaultIdBase);
        if (o.uid >= kIdRangeSize || o.gid >= kIdRangeSize)
            throw std::invalid_argument("--uid and --gid must be below " + std::to_string(kIdRangeSize));
        const Handover h{static_cast<uid_t>(r.uid_base + o.uid), static_cast<gid_t>(r.gid_base + o.gid), r.uid_base, r.gid_base};
        r.owner_uid = h.uid;
        r.owner_gid = h.gid;
        if (workspace_fd >= 0) {
            struct stat st{};
            if (fstat(workspace_fd, &st) != 0) throw std::runtime_error("cannot read the workspace " + o.workspace);
            // Shown as the sandbox's user through an idmapped mount, its files left as they are; else (and
            // said so) handed over. Either way the sandbox's user stays in the range.
            bool idmapped = false;
            if (needs_handover(st.st_uid, st.st_gid, h)) {
                std::string why = "asked for (sandbox.workspace_idmap = false)";
                if (o.workspace_idmap)
                    *idmapped_workspace_fd = idmapped_workspace(workspace_fd, o.workspace, {st.st_uid, st.st_gid, h.uid, h.gid, h.uid_base, h.gid_base}, why);
                idmapped = *idmapped_workspace_fd >= 0;
                if (!idmapped) {
                    const long changed = hand_over_tree(workspace_fd, o.workspace, h);
                    std::fprintf(stderr, "ah-sandbox-init: note: the workspace %s was root's: %ld of its entries now belong to the "
                                 "sandbox's user (uid %u on this machine), as no idmapped mount could be made: %s\n",
                                 o.workspace.c_str(), changed, static_cast<unsigned>(h.uid), why.c_str());
                    fstat(workspace_fd, &st);
                }
            }
            if (!idmapped) {
                r.owner_uid = st.st_uid;
                r.owner_gid = st.st_gid;
            }
            // Keep-id covers a user and their own group: a workspace of alice's in group postgres must not
            // give the sandbox the postgres group. Any other group is the range's like the rest.
            const auto owner = actionhost::common::user_by_uid(st.st_uid);
            if (!idmapped && st.st_gid != h.gid && (!owner || owner->gid != st.st_gid)) r.owner_gid = h.gid;
        }
    }
    IdMaps m = compute_id_maps(r);
    if (r.caller_uid == 0) {
        for (const auto &[outside, inside] : o.rw_binds) {
            if (chown(outside.c_str(), m.outside_uid, m.outside_gid) != 0)
                throw std::runtime_error("cannot hand " + outside + " to the sandbox's user: " + std::strerror(errno));
        }
    }
    return m;
}

// The image's environment for the command (Options::image_env_file): read here, in P, as data — a
// regular file of the backend's, at most 1 MiB, "NAME=value" entries with a plain name.
// A regular file of at most 1 MiB, whole, opened without following a link; std::runtime_error naming `what`.
std::string read_small_file(const std::string &path, const std::string &what) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st{};
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        if (fd >= 0) close(fd);
        throw std::runtime_error("cannot read " + what + " " + path);
    }
    std::string text(static_cast<size_t>(st.st_size), '\0');
    const ssize_t n = read(fd, text.data(), text.size());
    close(fd);
    if (n != static_cast<ssize_t>(text.size())) throw std::runtime_error("cannot read " + what + " " + path);
    return text;
}

std::vector<std::string> read_command_env(const std::string &path) {
    std::vector<std::string> out;
    if (path.empty()) return out;
    const std::string text = read_small_file(path, "the image's environment");
    for (size_t at = 0; at < text.size();) {
        const size_t end = text.find('\0', at);
        std::string kv = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        at = end == std::string::npos ? text.size() : end + 1;
        const size_t eq = kv.find('=');
        if (eq == 0 || eq == std::string::npos || kv.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") < eq)
            throw std::runtime_error("the image's environment holds a malformed entry");
        out.push_back(std::move(kv));
    }
    return out;
}

// The sandbox's own disk, mounted before anything is opened (disk_mount.hpp), and the directories the
// rest of the start finds on it: the overlay's upper and work directories (the sandbox's root's) and a
// temporary workspace (root's here, handed to the sandbox's user by choose_ids like any root-owned one).
void prepare_disk(const Options &o) {
    if (geteuid() != 0)
        throw std::invalid_argument("a disk limit needs the machine's root (a loop device and an ext4 mount): "
                                    "run as root, or leave sandbox.disk_limit unset");
    mount_sandbox_disk(o.disk_image, o.disk_dir);
    const std::string below = o.disk_dir + "/";
    const uid_t root_uid = static_cast<uid_t>(subordinate_base("/etc/subuid", "actionhost", kDefaultIdBase));
    const gid_t root_gid = static_cast<gid_t>(subordinate_base("/etc/subgid", "actionhost", kDefaultIdBase));
    for (const std::string *dir : {&o.upper_dir, &o.work_dir, &o.workspace}) {
        if (dir->rfind(below, 0) != 0 || dir->find('/', below.size()) != std::string::npos) continue;
        const bool workspace = dir == &o.workspace;
        if (mkdir(dir->c_str(), workspace ? 0700 : 0755) != 0 && errno != EEXIST)
            throw std::runtime_error("cannot make " + *dir + " on the sandbox's disk: " + std::strerror(errno));
        if (!workspace && chown(dir->c_str(), root_uid, root_gid) != 0)
            throw std::runtime_error("cannot give " + *dir + " to the sandbox's root: " + std::strerror(errno));
    }
}

}  // namespace

int main(int argc, char **argv) {
    // Termination requests wait (pending) until the sandbox exists to be ended, then the supervisor reads
    // them: a SIGTERM at any moment of the start ends it as cleanly as one after.
    sigset_t terminate;
    sigemptyset(&terminate);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&terminate, sig);
    sigprocmask(SIG_BLOCK, &terminate, nullptr);
    Options o;
    try {
        o = parse_options(argc, argv);
    } catch (const std::exception &e) {
        // The reason last: what reads this log back shows its tail.
        std::fprintf(stderr, "%s\nah-sandbox-init: %s\n", usage_text().c_str(), e.what());
        return 125;
    }
    IdMaps maps;
    DirIdentity workspace;  // what the new mount namespace must find at o.workspace
    int plan_workspace_mount = -1;  // an idmapped clone of it, made here (idmapped_workspace.hpp)
    try {
        if (!o.disk_image.empty()) prepare_disk(o);
        if (!o.workspace.empty()) {
            const WorkspaceDir dir(o.workspace);
            workspace = dir.identity();
            refuse_system_directory(workspace, o.workspace);
            maps = choose_ids(o, dir.fd(), &plan_workspace_mount);
        } else {
            maps = choose_ids(o, -1, &plan_workspace_mount);
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ah-sandbox-init: %s\n", e.what());
        return 125;
    }
    for (int fd : {o.lock_fd, o.control_fd})
        if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
    // Held from the groups' creation until pid 1 is in them: no sweep takes them for abandoned meanwhile.
    auto creating = std::make_unique<CgroupCreationLock>(CgroupCreationLock::Creating);
    std::unique_ptr<Cgroup> cgroup;
    if (!o.cgroup_name.empty()) {
        cgroup = std::make_unique<Cgroup>(o.cgroup_name, Limits{o.memory_mb, o.pids, o.cpus, o.tcp_memory_mb});
        for (const auto &w : cgroup->warnings()) std::fprintf(stderr, "ah-sandbox-init: warning: %s\n", w.c_str());
    }
    const bool root_caller = geteuid() == 0;
    RootPlan plan{&o,
                  Identity{o.user, o.uid, o.gid, o.uid == 0 ? "/root" : "/home/" + o.user, o.hostname, sandbox_resolv_conf(o.network_mode)},
                  o.scratch_mb > 0 ? o.scratch_mb : (o.memory_mb > 0 ? std::max(16L, o.memory_mb / 2) : 1024),
                  cgroup ? cgroup->views() : std::vector<std::pair<std::string, std::string>>{},
                  root_caller ? 0 : o.uid, root_caller ? 0 : o.gid, workspace, plan_workspace_mount};
    // A start that fails from here on leaves no group behind.
    auto fail = [&cgroup](const std::string &why) {
        std::fprintf(stderr, "ah-sandbox-init: %s\n", why.c_str());
        if (cgroup) cgroup->remove(0);
        return 125;
    };
    // An idle pause is a freeze: without a freezer it could only be refused later, when nobody is there.
    if (o.idle_timeout_s > 0 && o.idle_action == "pause" && !(cgroup && cgroup->has_freezer()))
        return fail("sandbox.idle_action = \"pause\" needs the cgroup freezer, which this sandbox has not (an unprivileged caller "
                    "without a delegated cgroup): use idle_action = \"stop\", or run as root");
    // internet: pasta and the egress filter, checked now (a bad policy entry fails before anything runs).
    std::unique_ptr<UserModeNetwork> user_net;
    if (o.network_mode == "internet") {
        try {
            if (!o.egress_ca_file.empty()) {
                // Only the CA's certificate (no secret) before the clone: pid 1 is a copy of this process.
                plan.identity.extra_trust = read_small_file(o.egress_ca_file, "the sandbox's CA certificate");
                if (plan.identity.extra_trust.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
                    throw std::runtime_error("the sandbox's CA certificate " + o.egress_ca_file + " is not a PEM certificate");
            }
            user_net = std::make_unique<UserModeNetwork>(EgressPolicy{o.allow_out, o.deny_out}, o.dns, !o.secrets_file.empty());
        } catch (const std::exception &e) {
            return fail(e.what());
        }
    }
    int listen_fd = -1, ports_fd = -1, requests_fd = -1;
    try {
        if (!o.socket_path.empty()) listen_fd = make_listener(o.socket_path);
        if (!o.ports_socket.empty()) {
            ports_fd = make_listener(o.ports_socket);
            requests_fd = make_listener(o.control_socket);
        }
    } catch (const std::exception &e) {
        return fail(e.what());
    }
    // No negative oom_score_adj anywhere: a privileged write would also lower the floor every process of
    // the sandbox may set itself to, so a command could make itself immune. The host starts its commands
    // above itself instead (common/oom.hpp); they can come down to the host's level, never below it.

    int go[2];
    if (pipe2(go, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
    bool pids_cgroup = false;
    for (const auto &view : plan.cgroup_views) pids_cgroup = pids_cgroup || view.second == "pids" || view.second.empty();
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    std::vector<std::string> command_env;
    try {
        command_env = read_command_env(o.image_env_file);
    } catch (const std::exception &e) {
        return fail(e.what());
    }
    // The audit trail: its chain opened (or continued) outside before anything runs; a sandbox asked to
    // keep one never starts without it.
    std::optional<actionhost::common::audit::Writer> audit_writer;
    int audit[2] = {-1, -1};
    if (!o.audit_dir.empty()) {
        auto opened = actionhost::common::audit::Writer::open(o.audit_dir, {o.audit_max_bytes, o.audit_keep_files});
        if (!opened) return fail("cannot keep the audit trail: " + opened.error().message);
        audit_writer.emplace(std::move(opened).value());
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, audit) != 0) return fail(std::string("socketpair: ") + std::strerror(errno));
    }
    const std::vector<int> join_fds = cgroup ? cgroup->open_self_join_files() : std::vector<int>{};
    ChildContext ctx{&o, &command_env, &plan, root_caller, go[0], listen_fd, ports_fd, out[1], out[0], pids_cgroup ? 0 : o.pids,
                     {o.lock_fd, o.control_fd, creating->fd(), requests_fd}, &join_fds, audit[1], audit[0]};
    const size_t stack_size = 1 << 20;
    std::unique_ptr<char[]> stack(new char[stack_size]);
    int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
    if (o.network_mode != "host") flags |= CLONE_NEWNET;
    pid_t child = clone(child_main, stack.get() + stack_size, flags, &ctx);
    if (child < 0) return fail(std::string("clone: ") + std::strerror(errno));
    close(go[0]);
    if (audit[1] >= 0) close(audit[1]);  // the host's end: pid 1 has it
    if (audit_writer)
        (void)audit_writer->append("sandbox", {{"event", "sandbox_started"}, {"supervisor_pid", getpid()}, {"program", o.command.empty() ? std::string() : o.command.front()}}, audit_now());
    for (int fd : join_fds) close(fd);  // pid 1 has its copies
    if (plan_workspace_mount >= 0) close(plan_workspace_mount);  // pid 1 has its copy
    const std::string proc = "/proc/" + std::to_string(child);
    bool network_begun = false;  // the filter loaded, pasta started (user_net.hpp)
    const bool mapped = (!maps.deny_setgroups || write_file(proc + "/setgroups", "deny")) &&
                        write_file(proc + "/uid_map", maps.uid_map) && write_file(proc + "/gid_map", maps.gid_map);
    if (!mapped) {
        std::fprintf(stderr, "ah-sandbox-init: cannot write the user namespace id maps: %s\n", std::strerror(errno));
        kill(child, SIGKILL);
    } else {
        // pid 1 moves itself into the v1 groups (no RCU grace period: see open_self_join_files); the
        // rest P does while pid 1 builds the root, then says "joined".
        (void)!write(go[1], "g", 1);
        if (cgroup) cgroup->join_others(child);
        std::string unconnected;
        if (user_net) {
            std::string proxy_config;
            try {
                // Read once and removed, now that pid 1 exists (no copy in its memory): from here the
                // secrets live only in the egress proxy. begin() wipes its copy once handed over.
                if (!o.secrets_file.empty()) {
                    proxy_config = read_small_file(o.secrets_file, "the sandbox's secrets");
                    unlink(o.secrets_file.c_str());
                    while (!proxy_config.empty() && proxy_config.back() == '\n') proxy_config.pop_back();
                    if (proxy_config.empty() || proxy_config.find('\n') != std::string::npos)
                        throw std::runtime_error("the sandbox's secrets file is not one JSON line");
                }
                unconnected = user_net->begin(child, std::move(proxy_config));  // the filter loaded
            } catch (const std::exception &e) {
                explicit_bzero(proxy_config.data(), proxy_config.size());
                unconnected = e.what();
            }
        }
        if (unconnected.empty()) {
            network_begun = user_net != nullptr;
            (void)!write(go[1], "j", 1);
        } else {  // never a sandbox on the internet without its filter
            std::fprintf(stderr, "ah-sandbox-init: the sandbox's network: %s\n", unconnected.c_str());
            kill(child, SIGKILL);
        }
    }
    creating.reset();
    close(go[1]);
    close(out[1]);
    // The keeper's copy of the API listener, made after the clone so pid 1 never holds it: readable while
    // the sandbox is paused means a request waits (actionhost/lifetime/lifetime_keeper.hpp).
    int api_listener = -1;
    if (listen_fd >= 0 && o.idle_timeout_s > 0 && o.idle_action == "pause") api_listener = fcntl(listen_fd, F_DUPFD_CLOEXEC, 0);
    if (listen_fd >= 0) close(listen_fd);  // pid 1 holds its copy
    if (ports_fd >= 0) close(ports_fd);    // the same
    // pasta may still be configuring the namespace while pid 1 starts the host (behind its filter):
    // waited for here, before the control socket is served — the backend asks it before it calls the
    // sandbox ready — so nothing the user runs finds the network half made.
    if (network_begun) {
        if (const std::string why = user_net->finish(); !why.empty()) {
            std::fprintf(stderr, "ah-sandbox-init: the sandbox's network: %s\n", why.c_str());
            kill(child, SIGKILL);
        }
    }
    Supervision watch;
    watch.child = child;
    watch.child_pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
    watch.control_fd = o.control_fd;
    watch.signal_fd = signalfd(-1, &terminate, SFD_CLOEXEC | SFD_NONBLOCK);
    watch.end_sandbox = [child, &cgroup] {
        kill(child, SIGKILL);  // pid 1 gone → the kernel kills the whole namespace
        if (cgroup) cgroup->thaw();
    };
    const bool keeps_time = o.lifetime_s > 0 || o.idle_timeout_s > 0;
    std::string ended_by_keeper;  // why the keeper ended the sandbox: then it cleans up after itself
    if (requests_fd >= 0 || user_net || keeps_time || audit_writer)
        watch.start_services = [requests_fd, api_listener, keeps_time, &o, &user_net, &cgroup, &ended_by_keeper, &audit_writer,
                                audit_read = audit[0]](boost::asio::io_context &io, std::function<void()> end) -> std::shared_ptr<void> {
            struct Services {
                std::unique_ptr<actionhost::lifetime::LifetimeKeeper> lifetime;  // before the control server, which uses it
                std::unique_ptr<ControlServer> control;
                std::unique_ptr<MachineAddressWatch> addresses;
                std::unique_ptr<AuditSink> audit;
            };
            auto services = std::make_shared<Services>();
            if (keeps_time) {
                actionhost::lifetime::SandboxControls controls;
                controls.end = [end, &ended_by_keeper](const std::string &why) {
                    ended_by_keeper = why;
                    end();
                };
                controls.freeze = [&cgroup] { return cgroup && cgroup->freeze(); };
                controls.thaw = [&cgroup] {
                    if (cgroup) cgroup->thaw();
                    return cgroup != nullptr;
                };
                controls.frozen = [&cgroup] { return cgroup && cgroup->frozen(); };
                std::vector<std::string> watched;
                for (const std::string *path : {&o.socket_path, &o.ports_socket})
                    if (!path->empty()) watched.push_back(*path);
                controls.connections = [watched] { return open_connections(watched); };
                actionhost::lifetime::LifetimeSettings settings;
                settings.lifetime_s = o.lifetime_s;
                settings.idle_timeout_s = o.idle_timeout_s;
                settings.idle_action = o.idle_action;
                settings.wake_fd = api_listener;
                settings.log_name = "ah-sandbox-init";
                services->lifetime = std::make_unique<actionhost::lifetime::LifetimeKeeper>(io, settings, std::move(controls));
            }
            if (audit_writer) services->audit = std::make_unique<AuditSink>(io, audit_read, *audit_writer);
            if (requests_fd >= 0)
                services->control = std::make_unique<ControlServer>(io, requests_fd, o.ports_socket, ControlServer::Network{o.network_mode, user_net.get()},
                                                                    services->lifetime.get());
            // The filter refuses the machine's addresses as they are now, not only as they were at the start.
            if (UserModeNetwork *net = user_net.get()) {
                try {
                    services->addresses = std::make_unique<MachineAddressWatch>(io, [net] {
                        try {
                            if (net->refresh_machine_addresses())
                                std::fprintf(stderr, "ah-sandbox-init: the machine's addresses changed; the sandbox's filter refuses the new ones\n");
                        } catch (const std::exception &e) {
                            std::fprintf(stderr, "ah-sandbox-init: the machine's addresses changed and the filter could not follow: %s\n", e.what());
                        }
                    });
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "ah-sandbox-init: warning: %s; an address the machine gains later is not refused\n", e.what());
                }
            }
            return services;
        };
    OutputRelay relay(out[0], STDERR_FILENO);
    malloc_trim(0);  // as pid 1 does: it waits for the sandbox's whole life
    const int status = supervise(watch, relay);
    if (watch.child_pidfd >= 0) close(watch.child_pidfd);
    if (audit_writer)
        (void)audit_writer->append("sandbox", {{"event", "sandbox_ended"}, {"wait_status", status}}, audit_now());
    if (user_net) user_net->end();
    if (cgroup) cgroup->remove(5.0);
    for (const std::string *path : {&o.socket_path, &o.ports_socket, &o.control_socket})
        if (!path->empty()) unlink(path->c_str());
    if (!ended_by_keeper.empty()) remove_after_self_end(o);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
