#include "options.hpp"

#include <CLI/CLI.hpp>
#include <stdexcept>

namespace sandbox {

namespace {

constexpr long kMaxLifetimeS = kMaxLifetimeSeconds;

// One definition of the command line for parsing and for the usage text.
void define(CLI::App &app, Options &o, std::vector<std::string> &rw_binds, std::vector<std::string> &volumes, bool &host_network) {
    app.add_option("--root-mount", o.root_mount, "empty directory the new root is assembled on")->required();
    app.add_option("--workspace", o.workspace, "directory mounted read-write (nosuid, nodev)");
    app.add_option("--workspace-target", o.workspace_target, "where the workspace appears inside")
        ->check([](const std::string &v) { return !v.empty() && v[0] == '/' ? "" : "must be an absolute path"; });
    app.add_option("--ro-bind", o.ro_binds, "extra path made visible read-only at the same place");
    app.add_option("--rw-bind", rw_binds, "OUTSIDE:INSIDE made visible read-write (nosuid, nodev, noexec)");
    app.add_option("--volume", volumes, "OUTSIDE:/INSIDE:ro|rw a volume of the user's (nosuid, nodev; :ro read-only, root inside too)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--socket", o.socket_path, "unix socket relayed to --forward-port inside");
    app.add_option("--forward-port", o.forward_port, "the host's port on the sandbox's loopback")->check(CLI::Range(1, 65535));
    app.add_option("--ports-socket", o.ports_socket, "unix socket whose connections pid 1 relays to the port each names first (\"8000\\n\")");
    app.add_option("--control-socket", o.control_socket, "unix socket of requests to the running sandbox (publish a port)");
    app.add_option("--cgroup", o.cgroup_name, "cgroup name under actionhost/");
    app.add_option("--memory-mb", o.memory_mb, "memory limit")->check(CLI::NonNegativeNumber);
    app.add_option("--pids", o.pids, "task limit")->check(CLI::NonNegativeNumber);
    app.add_option("--cpus", o.cpus, "CPU limit in cores")->check(CLI::NonNegativeNumber);
    app.add_option("--tcp-memory-mb", o.tcp_memory_mb, "TCP socket buffer limit (cgroup v1 memory.kmem.tcp)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--max-file-mb", o.max_file_mb, "largest file a process may write (RLIMIT_FSIZE)")->check(CLI::NonNegativeNumber);
    app.add_option("--address-space-mb", o.address_space_mb, "address space of each process (RLIMIT_AS)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--scratch-mb", o.scratch_mb, "size of the tmpfs behind /tmp, /dev/shm, /run and homes")
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--network", host_network, "share the caller's network namespace (the same as --network-mode host)");
    app.add_option("--network-mode", o.network_mode, "none (the default), internet (user-mode networking, never the machine) or host")
        ->check(CLI::IsMember({"none", "internet", "host"}));
    // One value per occurrence: a repeated option must never swallow the command after it.
    app.add_option("--allow-out", o.allow_out, "internet: a CIDR or domain name the sandbox may reach (repeated; once given, nothing else)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--deny-out", o.deny_out, "internet: a CIDR or domain name the sandbox may not reach (repeated)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--dns", o.dns, "internet: an upstream resolver's address for the sandbox's resolver guard (repeated, in order; "
                                   "default: the machine's resolver, through pasta)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--secrets-file", o.secrets_file, "internet: the egress proxy's secrets and CA (a JSON line; read once, then removed)");
    app.add_option("--egress-ca", o.egress_ca_file, "with --secrets-file: the sandbox CA's certificate (PEM), added to its trust store");
    app.add_flag("!--no-seccomp", o.seccomp, "no seccomp filter");
    app.add_option("--image-layer", o.image_layers, "an unpacked image layer, bottom first (repeated): the root is the image's");
    app.add_option("--upper", o.upper_dir, "with --image-layer: the overlay's upper directory (the sandbox's writes)");
    app.add_option("--work", o.work_dir, "with --image-layer: the overlay's work directory (same file system as --upper)");
    app.add_option("--image-env", o.image_env_file, "with --image-layer: a file of NAME=value entries (NUL-separated) set for the command only");
    app.add_option("--bundle", o.bundle_dir, "with --image-layer: the host bundle, read-only at /openhands/actionhost");
    app.add_option("--disk", o.disk_image, "an ext4 image: the sandbox's own disk, mounted at --disk-dir first (root only)");
    app.add_option("--disk-dir", o.disk_dir, "with --disk: where it is mounted (an empty directory); missing --upper, --work, "
                   "--workspace below it are made");
    app.add_flag("!--workspace-chown", o.workspace_idmap, "hand a root-owned workspace over with chown, never an idmapped mount");
    app.add_option("--hostname", o.hostname, "host name inside");
    app.add_option("--user", o.user, "the sandbox's user name");
    app.add_option("--uid", o.uid, "the sandbox's user id inside");
    app.add_option("--gid", o.gid, "the sandbox's group id inside");
    app.add_option("--lifetime", o.lifetime_s, "seconds after which the sandbox ends by itself (0: never)")->check(CLI::Range(0L, kMaxLifetimeS));
    app.add_option("--idle-timeout", o.idle_timeout_s, "seconds without a connection after which --idle-action applies (0: never)")
        ->check(CLI::Range(0L, kMaxLifetimeS));
    app.add_option("--idle-action", o.idle_action, "pause (freeze; the next connection thaws it) or stop")->check(CLI::IsMember({"pause", "stop"}));
    app.add_option("--run-dir", o.run_dir, "the sandbox's run directory: removed when it ends by itself");
    app.add_option("--expiry-remove", o.expiry_removes, "a file removed when the sandbox ends by itself (repeated: its records)")
        ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--lock-fd", o.lock_fd, "inherited descriptor held until the sandbox ends (its run directory's lock)");
    app.add_option("--control-fd", o.control_fd, "inherited socket of the backend: the sandbox ends when it closes before detaching");
    app.add_option("--audit-dir", o.audit_dir, "the audit trail's directory, outside (audit_sink.hpp): the host's records are "
                   "appended to its hash chain");
    app.add_option("--audit-max-bytes", o.audit_max_bytes, "with --audit-dir: a segment past this many bytes is rotated");
    app.add_option("--audit-keep-files", o.audit_keep_files, "with --audit-dir: segments kept (at least 2)");
    app.add_option("command", o.command, "the main process and its arguments (after --)");
}

}  // namespace

Options parse_options(int argc, char **argv) {
    Options o;
    std::vector<std::string> rw_binds, volumes;
    bool host_network = false;
    CLI::App app("ah-sandbox-init: runs one command in fresh namespaces", "ah-sandbox-init");
    define(app, o, rw_binds, volumes, host_network);
    // The command is everything after the first "--", split off here: CLI11 hands the words after "--"
    // to a repeated option that stands right before it, not to the command.
    int options_end = argc;
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--") {
            options_end = i;
            break;
        }
    try {
        app.parse(options_end, argv);
    } catch (const CLI::ParseError &e) {
        throw std::invalid_argument(e.what());
    }
    if (options_end < argc) o.command.assign(argv + options_end + 1, argv + argc);
    if (o.command.empty()) throw std::invalid_argument("no command: give it after --");
    for (const auto &v : rw_binds) {
        const auto colon = v.find(':');
        if (colon == std::string::npos || colon == 0 || v[colon + 1] != '/')
            throw std::invalid_argument("--rw-bind needs OUTSIDE:/INSIDE, got " + v);
        o.rw_binds.emplace_back(v.substr(0, colon), v.substr(colon + 1));
    }
    for (const auto &v : volumes) {
        const auto first = v.find(':'), last = v.rfind(':');
        const std::string mode = last == std::string::npos ? "" : v.substr(last + 1);
        if (first == std::string::npos || first == 0 || last == first || v[0] != '/' || v[first + 1] != '/' || (mode != "ro" && mode != "rw"))
            throw std::invalid_argument("--volume needs /OUTSIDE:/INSIDE:ro|rw, got " + v);
        o.volumes.push_back({v.substr(0, first), v.substr(first + 1, last - first - 1), mode == "ro"});
    }
    if (host_network && o.network_mode != "none" && o.network_mode != "host")
        throw std::invalid_argument("--network is --network-mode host, not " + o.network_mode);
    if (host_network) o.network_mode = "host";
    if (o.network_mode != "internet" && (!o.allow_out.empty() || !o.deny_out.empty() || !o.dns.empty() || !o.secrets_file.empty()))
        throw std::invalid_argument("--allow-out, --deny-out, --dns and --secrets-file need --network-mode internet");
    if (o.secrets_file.empty() != o.egress_ca_file.empty()) throw std::invalid_argument("--secrets-file and --egress-ca go together");
    if (!o.socket_path.empty() && o.forward_port <= 0) throw std::invalid_argument("--socket needs --forward-port");
    if (o.ports_socket.empty() != o.control_socket.empty()) throw std::invalid_argument("--ports-socket and --control-socket go together");
    if (o.image() && (o.upper_dir.empty() || o.work_dir.empty() || o.bundle_dir.empty()))
        throw std::invalid_argument("--image-layer needs --upper, --work and --bundle");
    if (o.disk_image.empty() != o.disk_dir.empty()) throw std::invalid_argument("--disk and --disk-dir go together");
    if (o.idle_timeout_s > 0 && o.socket_path.empty())
        throw std::invalid_argument("--idle-timeout needs --socket: idleness is counted on the connections it carries");
    if (o.user.empty() || o.user.find_first_of(":\n/") != std::string::npos)
        throw std::invalid_argument("--user must be a plain user name");
    return o;
}

std::string usage_text() {
    Options o;
    std::vector<std::string> rw_binds, volumes;
    bool host_network = false;
    CLI::App app("ah-sandbox-init: runs one command in fresh namespaces", "ah-sandbox-init");
    define(app, o, rw_binds, volumes, host_network);
    return app.help();
}

}  // namespace sandbox
