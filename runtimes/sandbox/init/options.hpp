// ah-sandbox-init's command line (the sandbox backend builds it; see main.cpp for the flow).
#pragma once

#include <sys/types.h>

#include <actionhost/lifetime/lifetime_plan.hpp>

#include <string>
#include <utility>
#include <vector>

namespace sandbox {

// The longest lifetime, idle timeout or extension (ten years), as every keeper of a lifetime bounds it.
using actionhost::lifetime::kMaxLifetimeSeconds;

// `[sandbox] volumes` entry (the backend checked it: runtime_support/volumes.hpp): the machine's
// directory or file `outside` at `inside`, nosuid and nodev, read-only with `read_only`.
struct Volume {
    std::string outside, inside;
    bool read_only = false;
};

struct Options {
    std::string root_mount;        // an empty outside directory the new root is assembled on
    std::string workspace;         // outside directory bind-mounted read-write (nosuid, nodev)
    std::string workspace_target = "/workspace";  // where it appears inside
    std::vector<std::string> ro_binds;  // extra outside paths made visible read-only at the same path
    std::vector<std::pair<std::string, std::string>> rw_binds;  // outside:inside, read-write (nosuid, nodev, noexec)
    std::vector<Volume> volumes;   // the user's volumes, attached last (over the workspace if inside it)
    std::string socket_path;       // listen here (outside) and forward to the host's TCP port inside
    int forward_port = 0;          // the host's port on the sandbox's loopback
    // Published ports (port_publisher.hpp): pid 1 relays connections of ports_socket (outside) to the
    // port each one names; P answers requests on control_socket (control_server.hpp). Both or neither.
    std::string ports_socket, control_socket;
    std::string cgroup_name;       // "" → no cgroup
    long memory_mb = 0, pids = 0;  // 0 = no limit
    long tcp_memory_mb = 0;        // the memory cgroup's TCP buffer limit (cgroup v1; v2 counts it in memory)
    long max_file_mb = 0;          // RLIMIT_FSIZE of every process (0 = none)
    long address_space_mb = 0;     // RLIMIT_AS of every process (0 = none)
    double cpus = 0;
    long scratch_mb = 0;           // size of the one tmpfs behind /tmp, /var/tmp, /dev/shm, /run, homes
                                   // (0 → half the memory limit, or 1024 MiB without one)
    std::string network_mode = "none";  // "none", "internet" (user_net.hpp) or "host" (the caller's namespace)
    std::vector<std::string> allow_out, deny_out;  // internet: the egress policy's CIDRs and names (egress_rules.hpp)
    std::vector<std::string> dns;  // internet: the resolver guard's upstream resolvers (dns_guard.hpp)
    // internet: the sandbox's secrets and CA (egress_proxy.hpp), a file the backend wrote (one JSON line:
    // net_main.cpp's proxy configuration), read once and removed — after pid 1 is cloned, so no copy of it
    // is ever in the sandbox's memory; and the CA's certificate alone (public), read before, for the
    // sandbox's trust store. Both or neither.
    std::string secrets_file, egress_ca_file;
    bool seccomp = true;
    std::string hostname = "sandbox";
    // The sandbox's user: the host runs as it (uid 0: root inside, which is never root outside).
    std::string user = "root";
    uid_t uid = 0;
    gid_t gid = 0;
    // An image's root instead of the machine's software (image_root in root_layout.hpp): its unpacked
    // layers, bottom first, under an overlay whose upper and work directories are the sandbox's own; the
    // host bundle (a tree that runs in any image) at /openhands/actionhost.
    std::vector<std::string> image_layers;
    std::string upper_dir, work_dir, bundle_dir;
    // The image's environment for the host ("NAME=value" NUL-separated, the backend filtered it): set in
    // the process that execs the host, inside, never in this program's own environment.
    std::string image_env_file;
    bool image() const { return !image_layers.empty(); }
    // The sandbox's own disk (disk_mount.hpp): an ext4 image mounted at disk_dir before anything else,
    // where --upper, --work and a temporary --workspace then are (made here when missing).
    std::string disk_image, disk_dir;
    // A root-owned workspace of a root caller: shown as the sandbox's user through an idmapped mount
    // (idmapped_workspace.hpp) rather than handed over with chown, where the kernel can.
    bool workspace_idmap = true;
    // Lifetimes (actionhost/lifetime/lifetime_keeper.hpp), kept here outside the sandbox so nothing inside can change them:
    // the sandbox ends `lifetime_s` seconds after its start (0: never), and after `idle_timeout_s`
    // seconds without a connection through its sockets it is paused or stopped (idle_action).
    long lifetime_s = 0, idle_timeout_s = 0;
    std::string idle_action = "pause";  // "pause" (the cgroup freezer; thawed by the next connection) or "stop"
    // What a sandbox that ended by itself (its lifetime, idle "stop") removes after it, as `ahctl stop`
    // would: its run directory and the records that named it.
    std::string run_dir;
    std::vector<std::string> expiry_removes;
    // The audit trail (audit_sink.hpp): its directory outside ("" = none) and its rotation.
    std::string audit_dir;
    unsigned long long audit_max_bytes = 8ull << 20;
    unsigned audit_keep_files = 8;
    int lock_fd = -1;              // inherited descriptor to hold for as long as the sandbox runs
    int control_fd = -1;           // inherited socket of the backend (supervisor.hpp)
    std::vector<std::string> command;  // argv of the process to run as the sandbox's main process
};

// Throws std::invalid_argument with a one-line reason (the caller prints usage_text()).
Options parse_options(int argc, char **argv);
std::string usage_text();

}  // namespace sandbox
