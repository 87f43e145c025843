// `sandbox`: the host in fresh Linux namespaces (user, mount, pid, net, ipc, uts) with cgroup limits and
// a seccomp filter, through the ah-sandbox-init helper installed beside this module. No daemon, no image.
//
// With a network namespace of its own (`[sandbox] network` "none", the default, or "internet") the host
// listens on a fixed port of the sandbox's private loopback and the client reaches it through a unix
// socket that ah-sandbox-init's pid 1 relays (endpoint unix://<run dir>/api.sock). With "host" the
// sandbox shares the caller's network and the host listens on an ephemeral 127.0.0.1 port (endpoint
// http://127.0.0.1:<port>). Ports of the sandbox are published on the machine through ah-sandbox-init's
// control socket (sandbox_control.hpp, init/port_publisher.hpp).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/common/audit_chain.hpp>
#include <actionhost/common/json_io.hpp>
#include <actionhost/common/result.hpp>
#include <actionhost/ext/runtime_images.h>
#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/host_bundle.hpp>
#include <actionhost/runtime_support/image_lease.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <actionhost/runtime_support/owned_dir.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <actionhost/runtime_support/volumes.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "egress_secrets.hpp"
#include "etc_view.hpp"
#include "id_map.hpp"
#include "tls_authority.hpp"
#include "image_env.hpp"
#include "lifetime_args.hpp"
#include "sandbox_control.hpp"
#include "sandbox_disk.hpp"
#include "sandbox_leftovers.hpp"
#include "supervisor.hpp"
#include "workspace_path.hpp"
#include <actionhost/common/io/unique_fd.hpp>

namespace {

using namespace actionhost::runtime_support;
using namespace actionhost::sandbox_runtime;
using sandbox::CaMaterial;
using sandbox::EgressSecret;
using sandbox::kCaBundle;
using sandbox::make_sandbox_ca;
using sandbox::parse_secret_table;
using sandbox::secret_hosts;
using sandbox::secrets_to_wire;
namespace fs = std::filesystem;
namespace common = actionhost::common;
using nlohmann::json;

constexpr int kHostPortInside = 3000;  // the sandbox's own loopback: no collisions possible
// OpenHands' app ports and VS Code's, inside a sandbox with a network namespace of its own (fixed: no
// collisions there either); published on free machine ports at start (ahctl -s SID port lists them).
constexpr int kAppPort1Inside = 50000, kAppPort2Inside = 55000, kVscodePortInside = 41000;
const char *kPortDirInside = "/run/actionhost";

bool write_text(const std::string &path, const std::string &text) {
    std::ofstream out(path);
    out << text;
    out.flush();
    return static_cast<bool>(out);
}

// The run directory's name carries the session id (readable in `ls /tmp` and in the cgroup names), cut
// short and to safe characters: the socket path inside it must stay within 108 bytes.
std::string run_dir_label(const std::string &session_id) {
    std::string label;
    for (char c : session_id.substr(0, 16)) label += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return label.empty() ? "s" : label;
}

class SandboxRuntime : public Backend {
  public:
    using Backend::Backend;
    ~SandboxRuntime() override {
        if (pid_ > 0 && !kept_) stop();
        close_fd(control_fd_);
        close_fd(lock_fd_);
        close_fd(client_fd_);
    }

    void connect() override {
        if (attach()) return;
        try {
            start();
        } catch (...) {
            stop();  // a failed start leaves no process, directory or cgroup behind
            throw;
        }
    }

    void start() {
        status(AH_STATUS_STARTING_RUNTIME, "creating namespaces");
        std::string install = info().install_dir;
        std::string init = install + "/lib/actionhost/runtimes/sandbox/ah-sandbox-init";
        if (access(init.c_str(), X_OK) != 0) throw std::runtime_error("the sandbox helper is missing: " + init);
        network_mode_ = network_mode();
        const std::string target = config_string("core.workspace_mount_path_in_sandbox", "/workspace");
        std::string workspace = config_string("core.workspace_base", "");
        // `[sandbox] volumes`, checked before anything is made: a bad entry starts nothing.
        std::vector<std::string> volume_args;
        if (auto spec = config("sandbox.volumes"); spec && !spec->empty() && *spec != "null") {
            std::vector<VolumeSpec> volumes;
            try {
                volumes = check_bind_volumes(parse_volumes(*spec));
            } catch (const std::invalid_argument &e) {
                throw std::runtime_error(e.what());
            }
            for (const auto &v : volumes) {
                const std::string entry = "sandbox.volumes: '" + v.host + ":" + v.container + ":" + v.mode + "': ";
                if (fs::path(v.container) != fs::path(target).lexically_normal()) {
                    volume_args.insert(volume_args.end(), {"--volume", v.host + ":" + v.container + ":" + v.mode});
                    continue;
                }
                // OpenHands' form of the workspace (SANDBOX_VOLUMES=/dir:/workspace:rw): the workspace mount
                // shows it (SANDBOX_VOLUMES made it core.workspace_base already, config.cpp).
                if (v.read_only())
                    throw std::runtime_error(entry + "the workspace cannot be read-only in the sandbox runtime; mount the directory elsewhere, or read-write");
                std::error_code ec;
                if (workspace.empty()) workspace = v.host;
                else if (!fs::equivalent(v.host, workspace, ec))
                    throw std::runtime_error(entry + "the workspace is " + workspace + " (core.workspace_base); name one directory for it");
            }
        }
        const bool keep = config_bool("sandbox.keep_runtime_alive", false);
        // Owned by this process until ah-sandbox-init holds the lock too, by ah-sandbox-init alone after;
        // this process is its client (client.lock) until the sandbox is kept alive: see owned_dir.hpp.
        OwnedDir dir = make_owned_temp_dir(std::string(kRunDirPrefix) + run_dir_label(info().session_id) + "-", true);
        run_dir_ = dir.path;
        lock_fd_ = dir.lock_fd;
        client_fd_ = dir.client_fd;
        cgroup_ = cgroup_of_run_dir(run_dir_);
        fs::create_directories(run_dir_ + "/root");
        fs::create_directories(run_dir_ + "/ports");
        if (keep) write_run_dir_owner(run_dir_, state_dir(), info().session_id);
        // sandbox.disk_limit: the sandbox's own disk (sandbox_disk.hpp), where its writable layer and a
        // temporary workspace then are; ah-sandbox-init mounts it where only the sandbox sees it.
        const uint64_t disk_bytes = parse_disk_limit(config_string("sandbox.disk_limit", ""));
        disk_ = disk_bytes > 0;
        if (disk_) {
            if (::geteuid() != 0)
                throw std::runtime_error("sandbox.disk_limit needs the machine's root (a loop device and an ext4 mount); "
                                         "unset it to start this sandbox without a disk limit");
            status(AH_STATUS_STARTING_RUNTIME, "making its disk");
            make_disk_image(state_dir() + "/disk-templates", disk_bytes, run_dir_ + "/disk.img");
            fs::create_directories(run_dir_ + "/disk");
        }
        if (workspace.empty() && disk_) {
            workspace_ = run_dir_ + "/disk/workspace";  // made on the disk by ah-sandbox-init
        } else {
            if (workspace.empty()) {
                workspace = run_dir_ + "/workspace";
                temp_workspace_ = workspace;
            }
            // Resolved here without following another user's link, created without following any, and
            // opened by ah-sandbox-init refusing links (see workspace_path.hpp).
            auto resolved = resolve_workspace(workspace);
            if (!resolved) throw std::runtime_error(resolved.error().message);
            if (auto made = make_workspace(resolved.value()); !made) throw std::runtime_error(made.error().message);
            // A temporary workspace is private to the sandbox's user (it may be handed to another uid).
            if (!temp_workspace_.empty()) fs::permissions(resolved.value(), fs::perms::owner_all);
            workspace_ = resolved.value();
        }

        // The control socket ties the sandbox to this process until it is kept (see init/supervisor.hpp).
        int control[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0)
            throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
        control_fd_ = control[0];
        const actionhost::common::io::UniqueFd child_end(control[1]);

        // The image the user named, ready in the client's image store (its layers unpacked for this caller's
        // ids), or none: then the machine's own software, read-only.
        const std::optional<json> image = prepare_image();
        std::vector<std::string> argv = {init, "--root-mount", run_dir_ + "/root", "--workspace", workspace_,
                                         "--workspace-target", target,
                                         "--rw-bind", run_dir_ + "/ports:" + kPortDirInside, "--cgroup", cgroup_,
                                         "--lock-fd", std::to_string(lock_fd_), "--control-fd", std::to_string(control[1])};
        std::string host_binary = install + "/bin/actionhost";
        if (image) {
            // The host goes in as the bundle (it runs in any image); the image's layers under an overlay
            // whose upper directory is this sandbox's own writes.
            const HostBundle bundle = find_host_bundle(install);
            if (bundle.prefix != "/openhands/actionhost")
                throw std::runtime_error("the host bundle in " + bundle.dir + " runs from " + bundle.prefix + ", not /openhands/actionhost");
            for (const auto &layer : (*image)["layers"]) argv.insert(argv.end(), {"--image-layer", layer.get<std::string>()});
            const IdOwners owners = id_owners();
            if (!disk_)
                for (const char *dir : {"upper", "work"}) {
                    const std::string path = run_dir_ + "/" + dir;
                    fs::create_directories(path);
                    if (owners.map) (void)!::chown(path.c_str(), static_cast<uid_t>(owners.uid_base), static_cast<gid_t>(owners.gid_base));
                    ::chmod(path.c_str(), 0755);
                }
            const std::string layer_dir = disk_ ? run_dir_ + "/disk" : run_dir_;  // on the disk, ah-sandbox-init makes them
            argv.insert(argv.end(), {"--upper", layer_dir + "/upper", "--work", layer_dir + "/work", "--bundle", bundle.tree()});
            image_digest_ = (*image).value("digest", "");
            // While this sandbox runs, removing its image from the store leaves these layers in place.
            write_image_lease(run_dir_, (*image).value("store", ""), image_digest_);
            host_binary = bundle.prefix + "/bin/actionhost";
        } else {
            argv.insert(argv.end(), {"--ro-bind", install});
        }
        if (disk_) argv.insert(argv.end(), {"--disk", run_dir_ + "/disk.img", "--disk-dir", run_dir_ + "/disk"});
        long memory = static_cast<long>(config_number("sandbox.memory_limit_mb", 4096));
        long pids = static_cast<long>(config_number("sandbox.pids_limit", 1024));
        double cpus = config_number("sandbox.cpu_limit", 0);
        if (memory > 0) argv.insert(argv.end(), {"--memory-mb", std::to_string(memory)});
        // Socket buffers beside the memory limit (cgroup v1 keeps them apart): a quarter of it, at most
        // 256 MiB, unless set.
        const long tcp = static_cast<long>(config_number("sandbox.socket_memory_mb", memory > 0 ? std::min(256L, std::max(16L, memory / 4)) : 0));
        if (tcp > 0) argv.insert(argv.end(), {"--tcp-memory-mb", std::to_string(tcp)});
        const long max_file = static_cast<long>(config_number("sandbox.max_file_size_mb", 8192));
        if (max_file > 0) argv.insert(argv.end(), {"--max-file-mb", std::to_string(max_file)});
        const long address_space = static_cast<long>(config_number("sandbox.address_space_mb", 0));
        if (address_space > 0) argv.insert(argv.end(), {"--address-space-mb", std::to_string(address_space)});
        if (pids > 0) argv.insert(argv.end(), {"--pids", std::to_string(pids)});
        if (cpus > 0) argv.insert(argv.end(), {"--cpus", std::to_string(cpus)});
        if (!config_bool("sandbox.seccomp", true)) argv.push_back("--no-seccomp");
        if (!config_bool("sandbox.workspace_idmap", true)) argv.push_back("--workspace-chown");
        // The audit trail: written by ah-sandbox-init, outside, in the caller's state directory
        // (client/audit_log.hpp), from the host's records.
        if (config_bool("sandbox.audit", true))
            argv.insert(argv.end(), {"--audit-dir", actionhost::common::audit::trail_dir(state_dir(), info().session_id), "--audit-max-bytes",
                                     std::to_string(static_cast<long long>(config_number("sandbox.audit_max_bytes", 8 << 20))),
                                     "--audit-keep-files", std::to_string(static_cast<long>(config_number("sandbox.audit_keep_files", 8)))});
        for (const auto &d : plugin_dirs()) argv.insert(argv.end(), {"--ro-bind", d});  // the host's --plugin-dir
        argv.insert(argv.end(), volume_args.begin(), volume_args.end());
        // The sandbox's user is the client's (--username/--user-id: openhands with `sandbox.user_id`, 1000
        // by default, or root when run_as_openhands is false), with a group of the same id. Either is
        // the workspace's owner on the machine and every other id an unprivileged one (see
        // runtimes/sandbox/init/id_map.hpp); a root caller's host runs as the sandbox's root and switches
        // to the user for commands, another caller's host runs as the user (its only id).
        std::vector<std::string> args = host_args();
        const std::string user = flag_value(args, "--username").value_or("root");
        long uid = 0;
        try {
            uid = std::stol(flag_value(args, "--user-id").value_or("0"));
        } catch (const std::exception &) {
            throw std::runtime_error("the sandbox's --user-id is not a number");
        }
        if (user == "root") uid = 0;
        if (uid < 0 || uid > 65535) throw std::runtime_error("sandbox.user_id must be 0..65535 in the sandbox runtime, not " + std::to_string(uid));
        const std::string home = uid == 0 ? "/root" : "/home/" + user;
        argv.insert(argv.end(), {"--user", user, "--uid", std::to_string(uid), "--gid", std::to_string(uid)});
        argv.insert(argv.end(), {"--network-mode", network_mode_});
        if (!host_network()) argv.insert(argv.end(), {"--socket", run_dir_ + "/api.sock", "--forward-port", std::to_string(kHostPortInside)});
        argv.insert(argv.end(), {"--ports-socket", ports_socket_path(run_dir_), "--control-socket", control_socket_path(run_dir_)});
        // The lifetime and idle timeout, kept by ah-sandbox-init (actionhost/lifetime/lifetime_keeper.hpp); a sandbox that
        // ends by itself removes its run directory and this session's records, as `ahctl stop` would.
        const std::vector<std::string> lifetime = lifetime_args({config("sandbox.lifetime"), config("sandbox.idle_timeout"),
                                                                 config("sandbox.idle_action"), host_network()});
        if (!lifetime.empty()) {
            argv.insert(argv.end(), lifetime.begin(), lifetime.end());
            argv.insert(argv.end(), {"--run-dir", run_dir_, "--expiry-remove", state_path(), "--expiry-remove", client_record_path()});
        }
        // The lists of the internet mode, each entry handed to ah-sandbox-init, which checks it.
        struct InternetList {
            const char *key, *flag, *what;
        };
        for (const InternetList &list : {InternetList{"sandbox.allow_out", "--allow-out", "CIDRs and domain names"},
                                         InternetList{"sandbox.deny_out", "--deny-out", "CIDRs and domain names"},
                                         InternetList{"sandbox.dns", "--dns", "addresses"}}) {
            const std::string key = list.key;
            const json entries = json::parse(config_string(key, "[]"), nullptr, false);
            if (!entries.is_array()) throw std::runtime_error(key + " must be a list of " + list.what);
            if (!entries.empty() && network_mode_ != "internet")
                throw std::runtime_error(key + " needs sandbox.network = \"internet\" (it is \"" + network_mode_ + "\")");
            for (const auto &e : entries) {
                if (!e.is_string()) throw std::runtime_error(key + " must be a list of " + list.what + " (strings)");
                argv.insert(argv.end(), {list.flag, e.get<std::string>()});
            }
        }
        const bool with_secrets = add_secrets(argv);
        set_flag(args, "--working-dir", target);
        set_flag(args, "--username", user);
        set_flag(args, "--user-id", std::to_string(uid));
        set_flag(args, "--host", "127.0.0.1");
        set_flag(args, "--port-file", std::string(kPortDirInside) + "/port");
        // The image's own plugins (ahctl plugin install --as), searched after the bundle's.
        if (image) args.insert(args.end(), {"--plugin-dir", kImagePluginDir});
        // The image's own environment (its PATH above all), for the host only, inside (image_env.hpp).
        if (image) {
            auto settled = host_env();  // what the configuration and the sandbox's identity set stays theirs
            for (const char *k : {"HOME", "USER", "OPENHANDS_SESSION_ID", "SANDBOX_GROUP_ID"}) settled[k] = "";
            const ImageEnv env = filter_image_env((*image)["env"], settled);
            if (!env.refused.empty()) {
                std::string names;
                for (const auto &n : env.refused) names += (names.empty() ? "" : ", ") + n;
                log(AH_LOG_WARNING, "the image's environment sets what only actionhost may set; left out: " + names);
            }
            write_image_env(run_dir_ + "/image.env", env.kept);
            argv.insert(argv.end(), {"--image-env", run_dir_ + "/image.env"});
        }
        argv.push_back("--");
        argv.push_back(host_binary);
        argv.push_back(host_network() ? "0" : std::to_string(kHostPortInside));
        argv.insert(argv.end(), args.begin(), args.end());

        SpawnOptions spawn;
        spawn.argv = argv;
        // A clean environment: the sandbox sees only what the configuration gives it.
        spawn.env = {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                     {"HOME", home}, {"USER", user}, {"LANG", "C.UTF-8"}, {"TERM", "xterm"},
                     {"OPENHANDS_SESSION_ID", info().session_id},
                     // The workspace keeps the user's group when the host hands it over (not root's).
                     {"SANDBOX_GROUP_ID", std::to_string(uid)}};
        for (const auto &[k, v] : host_env()) spawn.env[k] = v;
        // With secrets, the sandbox's CA is in its bundle; tools with a store of their own are pointed there.
        if (with_secrets)
            for (const char *k : {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"}) spawn.env.emplace(k, kCaBundle);
        const std::vector<std::pair<std::string, int>> app_ports = choose_app_ports(spawn.env);
        key_ = spawn.env["SESSION_API_KEY"];
        spawn.log_path = run_dir_ + "/sandbox.log";
        spawn.keep_fds = {lock_fd_, control[1]};
        pid_ = spawn_process(spawn);
        if (auto id = identify_process(pid_)) identity_ = *id;
        else identity_ = {pid_, 0, current_boot_id()};

        int port = wait_port_file(run_dir_ + "/ports/port", pid_, 60, spawn.log_path);
        url_ = host_network() ? "http://127.0.0.1:" + std::to_string(port) : "unix://" + run_dir_ + "/api.sock";
        wait_alive(url_, key_, 60);
        tell_notes(spawn.log_path);
        // OpenHands' app ports, reachable from the machine as Docker publishes them (not with the
        // machine's network: there they are on the machine already).
        for (const auto &[name, port] : app_ports) {
            const std::string at = publish_port(port, 0, "127.0.0.1");
            log(AH_LOG_DEBUG, name + " (" + std::to_string(port) + " inside) is published at " + at);
        }
        // ah-sandbox-init serves its control socket only once the sandbox's network is connected (pasta
        // may finish after the host started): one request is the barrier before "ready".
        if (network_mode_ == "internet" && app_ports.empty()) control_request(run_dir_, json{{"op", "ports"}}, 30.0);
        started_at_ = static_cast<long long>(std::time(nullptr));
        if (keep) {
            save_state();
            detach();
        }
        close_fd(lock_fd_);  // from here the directory lives exactly as long as its ah-sandbox-init
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    // sandbox.secrets (with the provider tokens the client made secrets of): checked, given a CA of the
    // sandbox's own (name-constrained to their hosts), and written for ah-sandbox-init into a file only
    // this user may read, which it reads once and removes (--secrets-file). False when there are none.
    bool add_secrets(std::vector<std::string> &argv) {
        std::vector<EgressSecret> secrets;
        try {
            secrets = parse_secret_table(json::parse(config_string("sandbox.secrets", "null"), nullptr, false));
        } catch (const std::invalid_argument &e) {
            throw std::runtime_error(e.what());
        }
        const std::string upstream_ca_file = config_string("sandbox.upstream_ca_file", "");
        if (secrets.empty() && upstream_ca_file.empty()) return false;
        if (network_mode_ != "internet")
            throw std::runtime_error(std::string(secrets.empty() ? "sandbox.upstream_ca_file" : "sandbox.secrets") +
                                     " needs sandbox.network = \"internet\" (it is \"" + network_mode_ +
                                     "\"): only there does an egress proxy outside the sandbox add them");
        if (secrets.empty()) return false;
        std::string upstream_ca;
        if (!upstream_ca_file.empty()) {
            std::ifstream in(upstream_ca_file);
            upstream_ca.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            if (!in.good() && !in.eof()) upstream_ca.clear();
            if (upstream_ca.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
                throw std::runtime_error("sandbox.upstream_ca_file " + upstream_ca_file + " holds no PEM certificate");
        }
        const CaMaterial ca = make_sandbox_ca(std::string("actionhost sandbox ") + info().session_id, secret_hosts(secrets));
        const std::string line = common::dump_json(
            json{{"secrets", secrets_to_wire(secrets)}, {"ca_cert", ca.cert_pem}, {"ca_key", ca.key_pem}, {"upstream_ca", upstream_ca}});
        const std::string secrets_path = run_dir_ + "/secrets.json", ca_path = run_dir_ + "/egress-ca.pem";
        for (const auto &[path, text] : {std::pair{secrets_path, &line}, std::pair{ca_path, &ca.cert_pem}}) {
            const common::io::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
            if (!fd || ::write(fd.get(), text->data(), text->size()) != static_cast<ssize_t>(text->size()))
                throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
        }
        argv.insert(argv.end(), {"--secrets-file", secrets_path, "--egress-ca", ca_path});
        return true;
    }

    Endpoint endpoint() override { return {url_, key_, cgroup_}; }

    // Pause freezes every process of the sandbox with the cgroup freezer (v1) or cgroup.freeze (v2).
    void pause() override { freeze(true); }
    void resume() override { freeze(false); }

    void close() override {
        if (pid_ <= 0) return;
        if (config_bool("sandbox.keep_runtime_alive", false)) {
            kept_ = true;
            save_state();
            return;
        }
        stop();
    }

    bool reclaims_sandboxes() const override { return true; }

    // Published ports: ah-sandbox-init listens on the machine and carries each connection in through
    // its pid 1 (init/port_publisher.hpp), asked through the sandbox's control socket — so any client
    // process of the caller's, not only the one that started the sandbox, can add, remove and list them.
    bool publishes_ports() const override { return true; }
    std::string publish_port(int port, int machine_port, const std::string &address) override {
        const json reply = control_request(running_run_dir(), json{{"op", "publish"}, {"port", port}, {"machine_port", machine_port},
                                                                   {"address", address.empty() ? "127.0.0.1" : address}});
        return reply.value("address", "");
    }
    void unpublish_port(int port) override { control_request(running_run_dir(), json{{"op", "unpublish"}, {"port", port}}); }
    // The egress policy: read and changed by ah-sandbox-init, which loads the filter (init/user_net.hpp).
    bool has_network_policy() const override { return true; }
    std::string network_policy() override { return common::dump_json(without_ok(control_request(running_run_dir(), json{{"op", "net"}}, 30.0))); }
    std::string change_network_policy(const std::string &change_json) override {
        json change = json::parse(change_json, nullptr, false);
        if (!change.is_object()) throw std::invalid_argument("the change of the egress policy is not a JSON object");
        change["op"] = "net_change";
        return common::dump_json(without_ok(control_request(running_run_dir(), change, 30.0)));
    }
    static json without_ok(json reply) {
        reply.erase("ok");
        return reply;
    }

    std::string published_ports() override {
        json reply = control_request(running_run_dir(), json{{"op", "ports"}});
        json out{{"ports", reply.value("ports", json::array())}};
        if (!network_mode_.empty() && network_mode_ != "host") out["host_port"] = kHostPortInside;
        return common::dump_json(out);
    }

    // A snapshot: the sandbox frozen (its cgroup freezer), its own layer described for the client, which
    // commits it as an image and thaws it.
    bool takes_snapshots() const override { return true; }
    std::string freeze_layer() override {
        if (image_digest_.empty())
            throw Unsupported("this sandbox has no image below it (the machine's /usr): start it with --image to take snapshots");
        freeze(true);
        const IdOwners owners = id_owners();
        // A disk of its own is mounted only in ah-sandbox-init's mount namespace: reached through its root.
        const std::string upper = disk_ ? "/proc/" + std::to_string(pid_) + "/root" + run_dir_ + "/disk/upper" : run_dir_ + "/upper";
        return common::dump_json(json{{"upper", upper}, {"image", image_digest_}, {"map_owners", owners.map},
                                      {"uid_base", owners.uid_base}, {"gid_base", owners.gid_base}});
    }
    void thaw_layer() override { freeze(false); }

    // The lifetime kept by ah-sandbox-init (actionhost/lifetime/lifetime_keeper.hpp), asked through the control socket:
    // from the client that started it, or from any later one through the session's record.
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override { return common::dump_json(without_ok(control_request(lifetime_run_dir(), json{{"op", "lifetime"}}))); }
    std::string extend_lifetime(long long seconds) override {
        return common::dump_json(without_ok(control_request(lifetime_run_dir(), json{{"op", "extend"}, {"seconds", seconds}})));
    }

    bool sandbox_exists() override {
        auto record = read_record();
        return record && kept_alive_record_is_live(*record);
    }

    // Stops the kept-alive sandbox of this session without a word to it: it may not answer.
    void discard() override {
        if (pid_ > 0) {
            stop();
            return;
        }
        auto record = read_record();
        if (!record) return;
        take_record(*record);
        stop();
    }

    void reclaim(bool thorough, const std::function<void(const std::string &)> &ended) override {
        reclaim_leftovers(state_dir(), thorough, ended);
    }

  private:
    struct IdOwners {
        bool map = false;  // a root caller: the sandbox's ids are a range of the machine's
        unsigned long uid_base = 0, gid_base = 0;
    };
    static IdOwners id_owners() {
        if (::geteuid() != 0) return {};
        return {true, sandbox::subordinate_base("/etc/subuid", "actionhost", sandbox::kDefaultIdBase),
                sandbox::subordinate_base("/etc/subgid", "actionhost", sandbox::kDefaultIdBase)};
    }

    // The configured image, made ready by the client library's image store, or nullopt when none is
    // configured (or the client library has no image store).
    std::optional<json> prepare_image() {
        const auto *images = static_cast<const ah_ext_runtime_images_t *>(host()->get_extension(host(), AH_EXT_RUNTIME_IMAGES));
        if (images == nullptr) return std::nullopt;
        const IdOwners owners = id_owners();
        const json owners_json = owners.map ? json{{"map_owners", true}, {"uid_base", owners.uid_base}, {"gid_base", owners.gid_base}}
                                            : json::object();
        char *answer = nullptr;
        const ah_status_t st = images->prepare(host(), common::dump_json(owners_json).c_str(), &answer);
        if (answer == nullptr) {
            if (st != AH_OK) throw std::runtime_error("the image could not be prepared");
            return std::nullopt;
        }
        json image = json::parse(answer, nullptr, false);
        images->free_string(host(), answer);
        if (st != AH_OK) throw std::runtime_error(image.is_object() ? image.value("error", "the image could not be prepared") : "the image could not be prepared");
        if (!image.is_object() || !image.contains("layers") || !image["layers"].is_array() || image["layers"].empty())
            throw std::runtime_error("the image store described the image without layers");
        return image;
    }

    // The sandbox shares the machine's network: its host on a machine port, nothing to publish.
    bool host_network() const { return network_mode_ == "host"; }

    // The run directory of this session's running sandbox: its own, or a kept-alive one's from its record.
    std::string lifetime_run_dir() const {
        if (pid_ > 0 && !run_dir_.empty()) return run_dir_;
        auto record = read_record();
        if (!record || !kept_alive_record_is_live(*record))
            throw std::runtime_error("session " + std::string(info().session_id) + " has no running sandbox");
        return record->value("run_dir", "");
    }

    // The client library's record of this session, removed by a sandbox that ends by itself.
    std::string client_record_path() const { return actionhost::runtime_support::client_record_path(state_dir(), info().session_id); }

    const std::string &running_run_dir() const {
        if (pid_ <= 0 || run_dir_.empty()) throw std::runtime_error("the sandbox is not running");
        return run_dir_;
    }

    // APP_PORT_1, APP_PORT_2 and VSCODE_PORT for the host (OpenHands' names), unless the configuration
    // set them: fixed ports, as the sandbox's network namespace is its own. Returns the ones to publish.
    // With the machine's network ("host") none is set: any free port of the machine serves there.
    std::vector<std::pair<std::string, int>> choose_app_ports(std::map<std::string, std::string> &env) const {
        if (host_network()) return {};
        const int vscode = static_cast<int>(config_number("sandbox.vscode_port", 0));
        const std::vector<std::pair<std::string, int>> wanted = {
            {"APP_PORT_1", kAppPort1Inside}, {"APP_PORT_2", kAppPort2Inside}, {"VSCODE_PORT", vscode > 0 ? vscode : kVscodePortInside}};
        std::vector<std::pair<std::string, int>> chosen;
        for (const auto &[name, port] : wanted) {
            if (env.count(name)) continue;
            env[name] = std::to_string(port);
            chosen.emplace_back(name, port);
        }
        return chosen;
    }

    static void close_fd(int &fd) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }

    // Tells ah-sandbox-init that the sandbox is recorded as kept: it no longer ends with this process.
    void detach() {
        release_to_owner(run_dir_, client_fd_);
        char byte = sandbox::kDetach;
        bool acknowledged = ::write(control_fd_, &byte, 1) == 1;
        struct pollfd p{control_fd_, POLLIN, 0};
        acknowledged = acknowledged && ::poll(&p, 1, 10'000) == 1 && ::read(control_fd_, &byte, 1) == 1 && byte == sandbox::kDetach;
        close_fd(control_fd_);
        if (!acknowledged) throw std::runtime_error("the sandbox's ah-sandbox-init did not take the keep-alive request");
    }

    void freeze(bool frozen) {
        if (pid_ <= 0) throw std::runtime_error("the sandbox is not running");
        std::string v1 = "/sys/fs/cgroup/freezer/actionhost/" + cgroup_ + "/freezer.state";
        std::string v2 = "/sys/fs/cgroup/actionhost/" + cgroup_ + "/cgroup.freeze";
        if (fs::exists(v1)) {
            if (!write_text(v1, frozen ? "FROZEN" : "THAWED")) throw std::runtime_error("cannot write " + v1);
            // v1 passes through FREEZING: return once every task is really stopped (or thawed).
            std::string want = frozen ? "FROZEN" : "THAWED";
            for (int i = 0; i < 1000; ++i) {
                std::ifstream in(v1);
                std::string state;
                in >> state;
                if (state == want) return;
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            throw Timeout("the sandbox did not reach " + want + " within 5 s");
        } else if (fs::exists(v2)) {
            if (!write_text(v2, frozen ? "1" : "0")) throw std::runtime_error("cannot write " + v2);
        } else {
            throw Unsupported("no cgroup freezer for this sandbox (unprivileged or no freezer controller)");
        }
    }

    // What ah-sandbox-init did that the user should know of (a workspace handed over with chown): its
    // "note:" lines of the log, as warnings (ahctl prints them).
    void tell_notes(const std::string &log_path) const {
        std::ifstream in(log_path);
        const std::string prefix = "ah-sandbox-init: note: ";
        for (std::string line; std::getline(in, line);)
            if (line.rfind(prefix, 0) == 0) log(AH_LOG_WARNING, line.substr(prefix.size()));
    }

    std::string state_dir() const { return config_string("core.state_dir", "/tmp"); }

    // sandbox.network: "none", "internet" or "host"; the booleans of earlier releases are read as
    // "host" (true) and "none" (false), with a note.
    std::string network_mode() const {
        const std::string v = config_string("sandbox.network", "none");
        if (v == "none" || v == "internet" || v == "host") return v;
        if (v == "true" || v == "false") {
            const std::string mode = v == "true" ? "host" : "none";
            log(AH_LOG_INFO, "sandbox.network = " + v + " is read as \"" + mode + "\" (the values are now \"none\", \"internet\", \"host\")");
            return mode;
        }
        throw std::runtime_error("sandbox.network must be \"none\", \"internet\" or \"host\", not '" + v + "'");
    }
    std::string state_path() const { return kept_alive_record_path(state_dir(), "sandbox", info().session_id); }

    // The record as it is, alive or not.
    std::optional<json> read_record() const { return actionhost::common::read_json_object_file(state_path()); }

    void take_record(const json &s) {
        pid_ = s.value("pid", 0);
        identity_ = {pid_, s.value("pid_start", 0ULL), s.value("boot_id", current_boot_id())};
        url_ = s.value("url", "");
        key_ = s.value("session_api_key", "");
        run_dir_ = s.value("run_dir", "");
        temp_workspace_ = s.value("temp_workspace", "");
        cgroup_ = s.value("cgroup", "");
        started_at_ = s.value("started_at", 0LL);
        image_digest_ = s.value("image_digest", "");
        disk_ = s.value("disk", false);
        network_mode_ = s.value("network", std::string());
    }

    bool attach() {
        auto s = load_kept_alive_record(state_path());
        if (!s) return false;
        take_record(*s);
        try {
            freeze(false);
        } catch (...) {
        }
        wait_alive(url_, key_, 30);
        status(AH_STATUS_RUNTIME_STARTED, "attached to " + url_);
        return true;
    }

    void save_state() const {
        save_kept_alive_record(state_path(), json{{"pid", pid_}, {"pid_start", identity_.start_ticks}, {"boot_id", identity_.boot_id},
                                                  {"url", url_}, {"session_api_key", key_}, {"run_dir", run_dir_},
                                                  {"temp_workspace", temp_workspace_}, {"cgroup", cgroup_},
                                                  {"started_at", started_at_}, {"image_digest", image_digest_},
                                                  {"disk", disk_}, {"network", network_mode_}});
    }

    // ah-sandbox-init turns SIGTERM into SIGKILL of the namespace's pid 1 (after thawing a paused
    // sandbox), removes the cgroups and the socket, and exits: a few milliseconds, woken by its pidfd.
    // One that does not (stopped, or killed before) is SIGKILLed, and what it left is removed here.
    void stop() {
        if (pid_ > 0) {
            if (!signal_and_wait(identity_, SIGTERM, 5.0)) signal_and_wait(identity_, SIGKILL, 5.0);
            ::waitpid(pid_, nullptr, WNOHANG);  // our child: reaped; a reattached one: ECHILD
        }
        pid_ = -1;
        close_fd(control_fd_);
        close_fd(lock_fd_);
        remove_sandbox_leftovers(run_dir_, cgroup_);  // the workspace inside it too when it was a temporary one
        close_fd(client_fd_);
        std::error_code ec;
        if (!run_dir_.empty()) fs::remove(state_path(), ec);
    }

    pid_t pid_ = -1;
    ProcessIdentity identity_;
    int control_fd_ = -1, lock_fd_ = -1, client_fd_ = -1;
    bool kept_ = false;
    std::string network_mode_ = "none";  // "none", "internet", "host"; "" in a record of an older release
    bool disk_ = false;  // a disk of its own (sandbox.disk_limit)
    long long started_at_ = 0;
    std::string url_, key_, run_dir_, workspace_, temp_workspace_, cgroup_;
    std::string image_digest_;  // the manifest of the image below the sandbox ("" = the machine's /usr)
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<SandboxRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("sandbox", "0.1.0", create)
