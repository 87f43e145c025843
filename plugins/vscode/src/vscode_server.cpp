#include "vscode_server.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>


#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <actionhost/abi.h>
#include <actionhost/common/io/file_tail.hpp>

#include "http_probe.hpp"
#include "ports.hpp"
#include "settings_file.hpp"
#include <actionhost/common/random.hpp>

extern char **environ;

namespace actionhost::vscode {
namespace {

constexpr int kPortRangeFirst = 40000;  // OpenHands' VS Code port range
constexpr int kPortRangeLast = 49999;

int config_int(const ConfigLookup &config, const char *key, int fallback) {
    auto v = config(key);
    if (!v) return fallback;
    try {
        return std::stoi(*v);
    } catch (...) {
        return fallback;
    }
}

}  // namespace

VscodeServer::VscodeServer(ServerSettings settings) : settings_(std::move(settings)) {}

VscodeServer::~VscodeServer() { stop(); }

void VscodeServer::disable(const std::string &reason) {
    disabled_reason_ = reason;
    settings_.log(AH_LOG_WARNING, "vscode: connection token is null: " + reason);
}

void VscodeServer::start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return;
    started_ = true;
    const auto &config = settings_.config;

    // The workspace is the host's working dir; OpenHands' env names override where they are set.
    workspace_ = settings_.working_dir.empty() ? "/workspace" : settings_.working_dir;
    std::string settings_root = config("WORKSPACE_BASE").value_or(workspace_);
    if (auto mount = config("WORKSPACE_MOUNT_PATH_IN_SANDBOX"); mount && !mount->empty()) workspace_ = *mount;

    // OpenHands writes settings.json before any of its checks.
    if (auto written = write_workspace_settings(settings_root); !written)
        settings_.log(AH_LOG_WARNING, "vscode: " + written.error().message);

    auto who = decide_run_as(settings_.username, config("RUNTIME_USERNAME"));
    if (!who) return disable(who.error().message);
    user_ = std::move(who).value();

    if (auto raw = config("VSCODE_PORT")) {
        auto port = parse_port(*raw);
        if (!port) return disable("VSCODE_PORT '" + *raw + "' is not a valid port");
        if (!port_available(*port)) return disable("port " + *raw + " (VSCODE_PORT) is not available");
        public_port_ = *port;
    } else {
        auto port = find_free_port(kPortRangeFirst, kPortRangeLast);
        if (!port) return disable("VSCODE_PORT is unset and no free port was found in 40000-49999");
        public_port_ = *port;
    }

    std::vector<std::string> tried;
    binary_ = find_server(config, tried);
    if (!binary_) {
        std::string list;
        for (const auto &t : tried) list += (list.empty() ? "" : ", ") + t;
        return disable("no VS Code server is installed (looked for: " + list +
                       "; scripts/install-code-server installs code-server)");
    }

    token_ = common::random_uuid4();

    if (!make_run_dir()) return;
    launch_locked();
}

bool VscodeServer::make_run_dir() {
    // mkdtemp makes it mode 0700: code-server's socket in it is out of every other user's reach.
    char tmpl[] = "/tmp/actionhost-vscode-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) {
        disable(std::string("cannot create a private directory under /tmp: ") + std::strerror(errno));
        return false;
    }
    run_dir_ = tmpl;
    log_path_ = run_dir_ + "/server.log";
    log_.reset(::open(log_path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!log_) {
        disable("cannot create " + log_path_ + ": " + std::strerror(errno));
        return false;
    }
    std::vector<std::string> dirs{run_dir_};
    if (binary_->kind == ServerKind::CodeServer) {
        const std::string runtime = code_server_paths(run_dir_).runtime_dir;
        if (::mkdir(runtime.c_str(), 0700) != 0) {
            disable("cannot create " + runtime + ": " + std::strerror(errno));
            return false;
        }
        dirs.push_back(runtime);
    }
    if (!user_->switch_user) return true;
    // The deepest first, run_dir_ last: until its own chown it is root's 0700, so nothing in it can be
    // swapped for a link while the entries below change hands (and lchown would not follow one).
    for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
        const std::string &dir = *it;
        if (::lchown(dir.c_str(), user_->uid, user_->gid) == 0) continue;
        const std::string why = "cannot give " + dir + " to " + user_->name + ": " + std::strerror(errno);
        // code-server creates its socket in there, so without it code-server cannot listen at all.
        if (binary_->kind == ServerKind::CodeServer) {
            disable(why);
            return false;
        }
        settings_.log(AH_LOG_WARNING, "vscode: " + why);
    }
    return true;
}

bool VscodeServer::launch_locked() {
    const bool code_server = binary_->kind == ServerKind::CodeServer;
    const CodeServerPaths paths = code_server_paths(run_dir_);
    if (code_server) {
        // What a killed code-server left behind: the proxy must not reach a stale socket, and readiness
        // means the new server listens.
        std::error_code ignored;
        std::filesystem::remove(paths.socket, ignored);
        std::filesystem::remove(paths.session_socket, ignored);
        if (!proxy_) {
            proxy_ = std::make_unique<TokenProxy>(token_, paths.socket, settings_.log);
            if (auto listening = proxy_->start("0.0.0.0", public_port_); !listening) {
                proxy_.reset();
                disable("port " + std::to_string(public_port_) + " is not available: " + listening.error().message);
                return false;
            }
        }
    } else if (!port_available(public_port_)) {
        disable("port " + std::to_string(public_port_) + " is not available");
        return false;
    }

    ServerArgs args{&*binary_, token_, public_port_, workspace_, code_server ? "" : server_base_path(settings_.config),
                    run_dir_};
    SpawnSpec spec;
    spec.argv = server_argv(args);
    spec.env = server_env(environ, user_->switch_user, user_->name, user_->home, code_server ? paths.runtime_dir : "");
    spec.cwd = workspace_;
    spec.user = *user_;
    spec.log_fd = log_.get();
    ready_ = false;
    launched_at_ = std::chrono::steady_clock::now();
    auto spawned = ServerProcess::spawn(spec);
    if (!spawned) {
        process_.reset();
        disable(spawned.error().message);
        if (proxy_) proxy_->stop();
        proxy_.reset();
        return false;
    }
    process_ = std::move(spawned).value();
    settings_.log(AH_LOG_INFO, std::string("vscode: started ") + (code_server ? "code-server" : "openvscode-server") +
                                   " (pid " + std::to_string(process_->pid()) + ") as " + user_->name + " in " +
                                   workspace_ + ", port " + std::to_string(public_port_) +
                                   (code_server ? " (token proxy -> " + paths.socket + ")" : "") +
                                   ", log " + log_path_);
    return true;
}

bool VscodeServer::wait_ready_locked(std::chrono::milliseconds budget) {
    if (ready_) return true;
    const bool code_server = binary_->kind == ServerKind::CodeServer;
    const std::string socket = code_server_paths(run_dir_).socket;
    auto deadline = std::chrono::steady_clock::now() + budget;
    // Bounded by the deadline; each probe is short.
    while (std::chrono::steady_clock::now() < deadline) {
        if (!process_ || !process_->alive()) return false;
        // Any HTTP answer means the server is serving (openvscode-server answers 403 without a token).
        auto status = code_server ? http_status_on_socket(socket, "/healthz", 1000) : http_status(public_port_, "/healthz", 1000);
        if (status) {
            ready_ = true;
            auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - launched_at_);
            settings_.log(AH_LOG_INFO, "vscode: server answers HTTP " + std::to_string(ms.count()) + " ms after launch");
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

std::string VscodeServer::log_tail() const {
    const std::string text = common::io::file_tail(log_.get(), 601);
    return text.size() > 600 ? "..." + text.substr(1) : text;
}

ConnectionInfo VscodeServer::connection() {
    std::lock_guard<std::mutex> lock(mu_);
    ConnectionInfo info;
    info.port = public_port_;
    if (binary_) info.server = binary_->kind == ServerKind::CodeServer ? "code-server" : "openvscode-server";
    if (stopped_) {
        info.reason = "the host is shutting down";
        return info;
    }
    if (!started_) {
        info.reason = "the plugin was not initialised";
        return info;
    }
    if (!disabled_reason_.empty()) {
        info.reason = disabled_reason_;
        settings_.log(AH_LOG_DEBUG, "vscode: token request answered null: " + disabled_reason_);
        return info;
    }
    if (!process_ || !process_->alive()) {
        settings_.log(AH_LOG_WARNING, "vscode: the server is not running (log: " + log_tail() + "); restarting it");
        if (process_) process_->stop();  // what is left of its tree
        process_.reset();
        ++restarts_;
        if (!launch_locked()) {
            info.reason = disabled_reason_;
            return info;
        }
    }
    // Bounded so the answer beats the client's 10 s timeout; a slow server still gets its token.
    int budget_ms = config_int(settings_.config, "ACTIONHOST_VSCODE_READY_TIMEOUT_MS", 8000);
    if (!wait_ready_locked(std::chrono::milliseconds(budget_ms))) {
        if (!process_->alive()) {
            settings_.log(AH_LOG_WARNING, "vscode: the server exited while starting: " + log_tail());
        } else {
            settings_.log(AH_LOG_WARNING, "vscode: the server does not answer yet; returning its token anyway");
        }
    }
    info.token = token_;
    return info;
}

void VscodeServer::stop() {
    std::unique_ptr<ServerProcess> process;
    std::unique_ptr<TokenProxy> proxy;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopped_) return;
        stopped_ = true;
        process = std::move(process_);
        proxy = std::move(proxy_);
    }
    // The server first: relayed requests waiting on it then fail at once and the proxy stops quickly.
    if (process) {
        process->stop();
        settings_.log(AH_LOG_INFO, "vscode: server stopped");
    }
    if (proxy) proxy->stop();
    // code-server's sockets go with the directory.
    if (!run_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(run_dir_, ec);
    }
}

}  // namespace actionhost::vscode
