// `docker`: the host in a container, driven through the Docker Engine API (no docker CLI), as
// OpenHands' DockerRuntime does: container openhands-runtime-<sid>, attach when it exists, ports from
// OpenHands' ranges with file locks, its environment, volumes, keep_runtime_alive, pause/resume as
// stop/start, close. sandbox.lifetime and idle_timeout are kept by ah-docker-keeper (docker_keeper.cpp),
// started here and detached so that it outlives the client.
//
// The host gets into any base image as the self-contained bundle (bundle/assemble: the host, its plugins
// and every library they load, glibc and its loader included): bind-mounted read-only at its prefix
// (/openhands/actionhost, the default "bind" mode) or copied into an image of OpenHands' three-tag
// scheme ("image" mode). The image keeps its own /usr: bash, python3, its toolchain. An image the engine
// lacks is pulled first, with progress on the status line (image_pull.hpp).
#include <unistd.h>

#include <actionhost/lifetime/keeper_client.hpp>
#include <actionhost/lifetime/lifetime_plan.hpp>
#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/host_bundle.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <actionhost/runtime_support/process.hpp>
#include <actionhost/runtime_support/url_encode.hpp>
#include <actionhost/runtime_support/volumes.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "build_args.hpp"
#include "container_netns.hpp"
#include "container_options.hpp"
#include "engine_api.hpp"
#include "image_build.hpp"
#include "image_pull.hpp"
#include "registry_auth.hpp"
#include "seccomp_profile.hpp"
#include "port_lock.hpp"
#include <actionhost/common/json_write.hpp>

namespace {

using namespace actionhost::runtime_support;
using docker::Engine;
using docker::EngineReply;
using docker::PortLock;
using nlohmann::json;

#ifndef ACTIONHOST_VERSION
#define ACTIONHOST_VERSION "0.0.0"
#endif

// Docker's multiplexed log stream (8-byte frame headers) as plain text.
std::string demux_logs(const std::string &raw) {
    std::string out;
    size_t i = 0;
    while (i + 8 <= raw.size() && (raw[i] == 1 || raw[i] == 2) && raw[i + 1] == 0) {
        size_t len = (static_cast<unsigned char>(raw[i + 4]) << 24) | (static_cast<unsigned char>(raw[i + 5]) << 16) |
                     (static_cast<unsigned char>(raw[i + 6]) << 8) | static_cast<unsigned char>(raw[i + 7]);
        out += raw.substr(i + 8, len);
        i += 8 + len;
    }
    return i == 0 ? raw : out;
}

class DockerRuntime : public Backend {
  public:
    using Backend::Backend;

    void connect() override {
        // Refused before anything starts: a careless value, or an idle timeout this engine cannot serve.
        const actionhost::lifetime::LifetimePlan lifetime = actionhost::lifetime::plan_lifetime(
            {config("sandbox.lifetime"), config("sandbox.idle_timeout"), config("sandbox.idle_action")});
        status(AH_STATUS_STARTING_RUNTIME, "connecting to the Docker engine");
        open_engine();
        if (lifetime.idle_timeout_s > 0) docker::check_engine_for_idle_timeout(engine_->local());
        name_ = std::string("openhands-runtime-") + info().session_id;
        std::string base = config_string("sandbox.local_runtime_url", "http://localhost");
        if (base == "http://localhost") base = "http://127.0.0.1";  // no IPv6 detour through docker-proxy
        if (const char *addr = getenv("DOCKER_HOST_ADDR"); addr && *addr) base = std::string("http://") + addr;
        if (auto existing = engine_->inspect(name_)) {
            attach(*existing, base);
            return;
        }
        create_and_start(base);
        if (!lifetime.any()) return;
        try {
            start_keeper(lifetime);
        } catch (...) {  // a container nobody keeps the time of is not left behind
            remove(id_);
            id_.clear();
            port_.release();
            throw;
        }
    }

    Endpoint endpoint() override { return {url_, key_, id_}; }

    // OpenHands pauses and resumes a Docker runtime by stopping and starting its container.
    void pause() override { engine_->expect("POST", "/containers/" + id_ + "/stop?t=5", "", 204, 304, 60); }
    void resume() override {
        engine_->expect("POST", "/containers/" + id_ + "/start", "", 204, 304);
        follow_internal_address();  // a restarted container may get another address on the internal network
        wait_ready();
    }

    void close() override {
        if (!engine_ || id_.empty()) return;
        if (config_bool("sandbox.keep_runtime_alive", false)) return;
        // Its keeper first: it unpauses a container it paused, and does not take the removal for its end.
        actionhost::lifetime::end_keeper(keeper_record());
        if (config_bool("sandbox.rm_all_containers", false)) {
            std::string filter = R"({"name":["openhands-runtime-"]})";
            json all = engine_->expect("GET", "/containers/json?all=true&filters=" + actionhost::runtime_support::url_encode(filter), "", 200).json();
            for (const auto &c : all) remove(c.value("Id", ""));
        } else {
            remove(id_);
        }
        id_.clear();
        port_.release();
    }

    // The lifetime kept by ah-docker-keeper, asked through its control socket: from the client that
    // started the container, or from any later one of the session (its keeper's record).
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override {
        if (id_.empty() && !actionhost::lifetime::running_keeper(keeper_record())) require_container();
        return actionhost::lifetime::keeper_lifetime_state(keeper_record());
    }
    std::string extend_lifetime(long long seconds) override {
        if (id_.empty() && !actionhost::lifetime::running_keeper(keeper_record())) require_container();
        return actionhost::lifetime::keeper_extend(keeper_record(), seconds);
    }

  private:
    void open_engine() {
        if (engine_) return;
        const char *docker_host = getenv("DOCKER_HOST");
        engine_where_ = docker_host && *docker_host ? docker_host : config_string("sandbox.docker_socket", "/var/run/docker.sock");
        engine_ = std::make_unique<Engine>(host(), engine_where_);
    }

    std::string state_dir() const { return config_string("core.state_dir", "/tmp"); }
    std::string keeper_record() const { return actionhost::lifetime::keeper_record_path(state_dir(), "docker", info().session_id); }

    // A session asked about without connecting (ahctl ps, extend): its container must exist.
    void require_container() {
        open_engine();
        if (!engine_->inspect(std::string("openhands-runtime-") + info().session_id))
            throw std::runtime_error("session " + std::string(info().session_id) + " has no container");
    }

    // ah-docker-keeper for this container, detached: it keeps the time whether this client lives or
    // not, and at the end removes the container as close does, and the session's record.
    void start_keeper(const actionhost::lifetime::LifetimePlan &lifetime) {
        actionhost::lifetime::end_keeper(keeper_record());  // an earlier container's of this session, if one is left
        std::vector<std::string> argv = {info().install_dir + std::string("/lib/actionhost/runtimes/docker/ah-docker-keeper"),
                                         "--control-socket", actionhost::lifetime::keeper_socket_path(state_dir(), "docker", info().session_id),
                                         "--record", keeper_record(), "--engine", engine_where_, "--container", id_, "--port", port_text_,
                                         "--expiry-remove", client_record_path(state_dir(), info().session_id)};
        // In a network of its own the container's connections from itself are the agent's: not activity.
        if (!host_network_) argv.push_back("--ignore-local-peers");
        const auto args = lifetime.args();
        argv.insert(argv.end(), args.begin(), args.end());
        status(AH_STATUS_STARTING_RUNTIME, "starting the container's lifetime keeper");
        actionhost::lifetime::start_keeper(argv);
    }

    // OpenHands' legacy mount: `core.workspace_mount_path` (WORKSPACE_MOUNT_PATH) is the directory as the
    // engine's machine sees it — it differs from workspace_base when the client itself runs in a
    // container — and defaults to workspace_base.
    std::optional<std::string> workspace_mount_source() const {
        for (const char *key : {"core.workspace_mount_path", "core.workspace_base"})
            if (auto v = config(key); v && !v->empty()) return v;
        return std::nullopt;
    }

    std::vector<std::string> additional_networks() const {
        try {
            return docker::network_names(config("sandbox.additional_networks"));
        } catch (const std::invalid_argument &e) {
            throw Unsupported(e.what());
        }
    }

    void remove(const std::string &id) { engine_->remove_container(id); }

    static std::optional<std::string> env_value(const json &env, const std::string &name) {
        if (!env.is_array()) return std::nullopt;
        for (const auto &e : env) {
            std::string s = e.get<std::string>();
            if (s.rfind(name + "=", 0) == 0) return s.substr(name.size() + 1);
        }
        return std::nullopt;
    }

    void attach(const json &c, const std::string &base) {
        id_ = c.value("Id", "");
        const json &env = c["Config"]["Env"];
        auto port = env_value(env, "port");
        if (!port) throw std::runtime_error("container " + name_ + " exists but has no port= in its environment");
        key_ = env_value(env, "SESSION_API_KEY").value_or("");
        url_ = base + ":" + *port;
        status(AH_STATUS_STARTING_RUNTIME, "attaching to container " + name_);
        std::string state = c["State"].value("Status", "");
        if (state == "paused") engine_->expect("POST", "/containers/" + id_ + "/unpause", "", 204);
        else if (state != "running") engine_->expect("POST", "/containers/" + id_ + "/start", "", 204, 304);
        port_text_ = *port;
        internal_ = c["HostConfig"].value("NetworkMode", "") == docker::kInternalNetwork;
        follow_internal_address();
        wait_ready();
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    // Pulls `image` when the engine does not have it, reporting progress on the status line.
    void ensure_image(const std::string &image) {
        const EngineReply found = engine_->call("GET", "/images/" + image + "/json");
        if (found.status == 200) return;
        if (found.status != 404)
            throw std::runtime_error("Docker Engine: inspect image " + image + " → " + std::to_string(found.status) + ": " + found.body);
        docker::PullSettings settings;
        settings.platform = config_string("sandbox.platform", "");
        settings.docker_config_dir = docker::default_docker_config_dir();
        try {
            docker::pull_image(*engine_, image, settings, [this](const std::string &line) {
                status(AH_STATUS_STARTING_RUNTIME, line);
                log(AH_LOG_INFO, line);
            });
        } catch (const std::exception &e) {
            throw std::runtime_error(std::string("Docker image ") + image + " is not available: " + e.what() +
                                     ". Make it available (docker pull or docker load it, or run a registry that has it), "
                                     "name another image (sandbox.base_container_image), or use another runtime (ahctl -r sandbox)");
        }
    }

    // The network the configuration asks for (container_options.hpp), checked before anything is built
    // or started; "none" makes (or finds) the internal network.
    docker::DockerNetwork plan_network() {
        docker::DockerNetwork network;
        try {
            network = docker::docker_network(config("sandbox.network"), config("sandbox.allow_out"), config("sandbox.deny_out"),
                                             config("sandbox.dns"), config_bool("sandbox.use_host_network", false));
        } catch (const std::invalid_argument &e) {
            throw Unsupported(e.what());
        }
        if (network.kind == docker::DockerNetworkKind::Internal) {
            const char *docker_host = getenv("DOCKER_HOST");
            const char *host_addr = getenv("DOCKER_HOST_ADDR");
            const std::string why = docker::internal_network_refusal(
                docker_host ? docker_host : "", host_addr ? host_addr : "", !additional_networks().empty(),
                config_string("sandbox.local_runtime_url", "http://localhost"), config_string("sandbox.runtime_binding_address", "127.0.0.1"));
            if (!why.empty()) throw Unsupported(why);
            ensure_internal_network();
        }
        if (!network.note.empty()) log(AH_LOG_WARNING, network.note);
        return network;
    }

    // kInternalNetwork as made by internal_network_request, created when missing. Two clients may create
    // it at once: the engine refuses the second (409), which then finds the first's.
    void ensure_internal_network() {
        const std::string path = "/networks/" + std::string(docker::kInternalNetwork);
        EngineReply found = engine_->call("GET", path);
        if (found.status == 404) {
            const EngineReply made = engine_->call("POST", "/networks/create", actionhost::common::dump_json(docker::internal_network_request()));
            if (made.status != 201 && made.status != 409)
                throw std::runtime_error("Docker Engine: create network " + std::string(docker::kInternalNetwork) + " → " +
                                         std::to_string(made.status) + ": " + made.body);
            found = engine_->call("GET", path);
        }
        if (found.status != 200)
            throw std::runtime_error("Docker Engine: inspect network " + std::string(docker::kInternalNetwork) + " → " +
                                     std::to_string(found.status) + ": " + found.body);
        if (std::string problem = docker::internal_network_problem(found.json()); !problem.empty())
            throw Unsupported("sandbox.network = \"none\" needs the Docker network " + std::string(docker::kInternalNetwork) +
                              " as actionhost makes it, but " + problem + "; remove it (docker network rm " + docker::kInternalNetwork + ")");
    }

    // On the internal network the host is reached at the container's address there (no port is
    // published from such a network): url_ from the container's current address.
    void follow_internal_address() {
        if (!internal_) return;
        auto c = engine_->inspect(id_);
        std::string address;
        if (c) {
            const json networks = (*c)["NetworkSettings"].value("Networks", json::object());
            if (networks.contains(docker::kInternalNetwork)) address = networks[docker::kInternalNetwork].value("IPAddress", "");
        }
        if (address.empty())
            throw std::runtime_error("container " + name_ + " has no address on the Docker network " + docker::kInternalNetwork);
        url_ = "http://" + address + ":" + port_text_;
    }

    void create_and_start(const std::string &base) {
        const docker::DockerNetwork net = plan_network();
        internal_ = net.kind == docker::DockerNetworkKind::Internal;
        std::string mode = config_string("sandbox.docker_install_mode", "bind");
        if (mode != "bind" && mode != "image")
            throw Unsupported("sandbox.docker_install_mode = \"" + mode + "\" is not known; use \"bind\" or \"image\"");
        std::string image = config_string("sandbox.runtime_container_image", "");
        const bool build_image = mode == "image" && image.empty();
        if (image.empty()) image = config_string("sandbox.base_container_image", "");
        if (image.empty()) throw std::runtime_error("no image: set sandbox.base_container_image or runtime_container_image");
        // An image named by runtime_container_image already holds the host (made from the bundle).
        const bool mount_bundle = !build_image && config_string("sandbox.runtime_container_image", "").empty();
        HostBundle bundle;
        if (build_image || mount_bundle) bundle = find_host_bundle(info().install_dir);
        install_path_ = bundle.prefix.empty() ? "/openhands/actionhost" : bundle.prefix;
        const std::string platform = config_string("sandbox.platform", "");
        if (build_image) {
            // The bundle goes into an image of OpenHands' three-tag scheme instead of a bind mount.
            docker::ImagePlan plan;
            const char *repo = getenv("OH_RUNTIME_RUNTIME_IMAGE_REPO");
            plan.repo = repo && *repo ? repo : "actionhost/runtime";
            plan.version = ACTIONHOST_VERSION;
            plan.base_image = image;
            plan.browser_enabled = config_bool("core.enable_browser", true);
            plan.bundle_dir = bundle.dir;
            plan.install_path = install_path_;
            plan.force_rebuild = config_bool("sandbox.force_rebuild_runtime", false);
            plan.extra_deps = config_string("sandbox.runtime_extra_deps", "");
            std::vector<std::string> extra_args;
            if (auto a = config("sandbox.runtime_extra_build_args"); a && !a->empty() && *a != "null") {
                json list = json::parse(*a, nullptr, false);
                if (!list.is_array()) throw Unsupported("sandbox.runtime_extra_build_args must be a list of strings");
                for (const auto &x : list) {
                    if (!x.is_string()) throw Unsupported("sandbox.runtime_extra_build_args must be a list of strings");
                    extra_args.push_back(x.get<std::string>());
                }
            }
            try {
                plan.build_query = docker::build_query_from_args(extra_args);
            } catch (const std::invalid_argument &e) {
                throw Unsupported(e.what());
            }
            if (!platform.empty()) plan.build_query += "&platform=" + url_encode(platform);
            plan.ensure_base = [this](const std::string &base_image) { ensure_image(base_image); };
            status(AH_STATUS_BUILDING_RUNTIME, "runtime image for " + image);
            docker::BuildOutcome built = docker::ensure_runtime_image(
                *engine_, plan, [this](const std::string &line) { log(AH_LOG_INFO, "image build: " + line); });
            image = built.image;
            status(AH_STATUS_BUILDING_RUNTIME, built.built_from.empty() ? "reusing " + image
                                                                        : "built " + image + " from the " + built.built_from + " image");
        } else {
            ensure_image(image);
        }

        const bool host_network = net.kind == docker::DockerNetworkKind::Host;
        host_network_ = host_network;
        // Published ports on the machine's loopback unless asked otherwise (OpenHands: 0.0.0.0, which
        // hands the host's port, VS Code and the agent's app ports to the whole network).
        std::string binding = config_string("sandbox.runtime_binding_address", "127.0.0.1");
        port_ = PortLock::acquire(30000, 39999, binding);
        int vscode = static_cast<int>(config_number("sandbox.vscode_port", 0));
        vscode_port_ = vscode > 0 ? PortLock() : PortLock::acquire(40000, 49999, binding);
        app1_ = PortLock::acquire(50000, 54999, binding);
        app2_ = PortLock::acquire(55000, 59999, binding);
        std::string port = std::to_string(port_.port());
        port_text_ = port;

        std::vector<std::string> args = host_args();
        std::string target = config_string("core.workspace_mount_path_in_sandbox", "/workspace");
        set_flag(args, "--host", "0.0.0.0");
        json cmd = json::array({install_path_ + "/bin/actionhost", port});
        for (const auto &a : args) cmd.push_back(a);

        std::map<std::string, std::string> env = host_env();
        env["port"] = port;
        env["PYTHONUNBUFFERED"] = "1";
        env["VSCODE_PORT"] = std::to_string(vscode > 0 ? vscode : vscode_port_.port());
        env["APP_PORT_1"] = std::to_string(app1_.port());
        env["APP_PORT_2"] = std::to_string(app2_.port());
        env["OPENHANDS_SESSION_ID"] = info().session_id;
        env["PIP_BREAK_SYSTEM_PACKAGES"] = "1";
        if (config_bool("core.debug", false)) env["DEBUG"] = "true";
        if (!env.count("PATH")) env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
        key_ = env["SESSION_API_KEY"];
        json env_list = json::array();
        for (const auto &[k, v] : env) env_list.push_back(k + "=" + v);

        json binds = json::array();
        if (mount_bundle) binds.push_back(bundle.tree() + ":" + install_path_ + ":ro");
        // Legacy, explicit opt-in only: the machine's /usr over the image's own hides the image's toolchain.
        if (config_bool("sandbox.docker_mount_host_usr", false)) binds.push_back("/usr:/usr:ro");
        for (const auto &d : plugin_dirs()) binds.push_back(d + ":" + d + ":ro");  // the host's --plugin-dir
        if (auto volumes = config("sandbox.volumes"); volumes && !volumes->empty()) {
            for (const auto &v : parse_volumes(*volumes)) binds.push_back(v.host + ":" + v.container + ":" + v.mode);
        } else if (auto source = workspace_mount_source()) {
            binds.push_back(*source + ":" + target + ":rw");
        }

        // Published as OpenHands publishes them: the server port, the VSCode port when the
        // vscode plugin is asked for, and both app ports, each on the same port of the host.
        bool vscode_enabled = false;
        for (size_t i = 0; i < args.size(); ++i)
            if (args[i] == "--plugins")
                for (size_t j = i + 1; j < args.size() && args[j].rfind("--", 0) != 0; ++j) vscode_enabled |= args[j] == "vscode";
        std::vector<std::string> published = {port};
        if (vscode_enabled) published.push_back(env["VSCODE_PORT"]);
        published.push_back(env["APP_PORT_1"]);
        published.push_back(env["APP_PORT_2"]);
        json exposed = json::object(), bindings = json::object();
        for (const auto &p : published) {
            exposed[p + "/tcp"] = json::object();
            bindings[p + "/tcp"] = json::array({{{"HostIp", binding}, {"HostPort", p}}});
        }
        json host_config = {{"Binds", binds}};
        // The container's confinement beside the engine's defaults (docs/security.md, "The docker
        // runtime"): no process gains privilege on exec (no_new_privs: setuid files, sudo, file
        // capabilities do nothing); the sandbox runtime's seccomp policy, which refuses set-user/group-id
        // mode bits and device nodes reaching the machine through the bound workspace; no capability to
        // make device nodes or give files capabilities, which a local user could use from the
        // workspace's side on the machine (the engine cannot mount a bind nosuid or nodev).
        if (config_bool("sandbox.seccomp", true))
            host_config["SecurityOpt"] = json::array({"no-new-privileges", "seccomp=" + actionhost::common::dump_json(docker::seccomp_profile())});
        else
            host_config["SecurityOpt"] = json::array({"no-new-privileges"});
        host_config["CapDrop"] = json::array({"MKNOD", "SETFCAP"});
        if (host_network) {
            host_config["NetworkMode"] = "host";
        } else if (internal_) {
            host_config["NetworkMode"] = docker::kInternalNetwork;  // nothing published: reached at its address there
        } else {
            host_config["PortBindings"] = bindings;
        }
        if (!net.dns.empty()) host_config["Dns"] = net.dns;  // docker run --dns
        long memory = static_cast<long>(config_number("sandbox.memory_limit_mb", 0));
        long pids = static_cast<long>(config_number("sandbox.pids_limit", 0));
        double cpus = config_number("sandbox.cpu_limit", 0);
        if (memory > 0) host_config["Memory"] = memory * 1024 * 1024;
        if (pids > 0) host_config["PidsLimit"] = pids;
        if (cpus > 0) host_config["NanoCpus"] = static_cast<long long>(cpus * 1e9);
        if (auto gpus = docker::gpu_device_requests(config_bool("sandbox.enable_gpu", false), config("sandbox.cuda_visible_devices")))
            host_config["DeviceRequests"] = *gpus;
        if (auto extra = config("sandbox.docker_runtime_kwargs"); extra && !extra->empty()) {
            json kw = json::parse(*extra, nullptr, false);
            if (kw.is_object()) host_config.update(kw);  // passed through as HostConfig fields
        }

        json body = {{"Image", image}, {"Cmd", cmd}, {"Env", env_list}, {"WorkingDir", "/"},
                     {"ExposedPorts", exposed}, {"HostConfig", host_config},
                     {"Labels", {{"actionhost.session", info().session_id}}}};
        status(AH_STATUS_STARTING_RUNTIME, "creating container " + name_ + " from " + image);
        std::string create = "/containers/create?name=" + name_;
        if (!platform.empty()) create += "&platform=" + url_encode(platform);
        auto created = engine_->call("POST", create, actionhost::common::dump_json(body));
        if (created.status == 404)
            throw std::runtime_error("Docker image " + image + " disappeared before its container was created: " + created.body);
        if (created.status != 201)
            throw std::runtime_error("Docker Engine: create " + name_ + " → " + std::to_string(created.status) + ": " + created.body);
        id_ = created.json().value("Id", "");
        // OpenHands' additional_networks, joined before the start so the host is on them from its first moment.
        for (const auto &network : additional_networks()) {
            auto joined = engine_->call("POST", "/networks/" + url_encode(network) + "/connect", actionhost::common::dump_json(json{{"Container", id_}}));
            if (joined.status != 200) {
                engine_->call("DELETE", "/containers/" + id_ + "?force=true");
                throw std::runtime_error("Docker Engine: connect " + name_ + " to network " + network + " → " +
                                         std::to_string(joined.status) + ": " + joined.body);
            }
        }
        auto started = engine_->call("POST", "/containers/" + id_ + "/start");
        if (started.status != 204 && started.status != 304) {
            engine_->call("DELETE", "/containers/" + id_ + "?force=true");
            throw std::runtime_error("Docker Engine: start " + name_ + " → " + std::to_string(started.status) + ": " + started.body);
        }
        url_ = base + ":" + port;
        follow_internal_address();
        wait_ready();
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    // Container running, then /alive (OpenHands: every 2 s up to 120 s; we poll faster).
    void wait_ready() {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        for (int i = 0; i < 100000; ++i) {
            if (host()->wait_alive(host(), url_.c_str(), key_.c_str(), 0.5) == AH_OK) return;
            auto c = engine_->inspect(id_);
            if (!c || !(*c)["State"].value("Running", false)) {
                std::string logs = demux_logs(engine_->call("GET", "/containers/" + id_ + "/logs?stdout=1&stderr=1&tail=40").body);
                throw std::runtime_error("container " + name_ + " exited before the host was ready. Its log:\n" + logs);
            }
            if (std::chrono::steady_clock::now() >= deadline)
                throw Timeout("the host in " + name_ + " did not answer /alive within 120 s");
        }
    }

    std::unique_ptr<Engine> engine_;
    std::string engine_where_;  // the engine's socket or URL, as the keeper is told it
    std::string name_, id_, url_, key_, install_path_;
    bool host_network_ = false;  // the machine's network: its own connections count (they are the machine's)
    std::string port_text_;  // the host's port inside the container
    bool internal_ = false;  // on kInternalNetwork (sandbox.network = "none")
    PortLock port_, vscode_port_, app1_, app2_;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<DockerRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("docker", "0.1.0", create)
