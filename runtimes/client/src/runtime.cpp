#include "actionhost/client/runtime.hpp"

#include <actionhost/ext/http_response_headers.h>
#include <actionhost/ext/runtime_reclaim.h>
#include <actionhost/ext/runtime_recovery.h>
#include <actionhost/runtime_support/header_line.hpp>
#include <actionhost/runtime.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <chrono>
#include <cstddef>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/git_workspace.hpp"
#include "actionhost/client/in_process.hpp"
#include "actionhost/client/registry.hpp"
#include "actionhost/client/sandbox_env.hpp"
#include "actionhost/client/sandbox_shell.hpp"
#include "actionhost/client/state_store.hpp"

namespace actionhost::client {

using nlohmann::json;
namespace fs = std::filesystem;

std::string random_hex(size_t bytes) {
    std::string out;
    std::ifstream urandom("/dev/urandom", std::ios::binary);
    static const char *digits = "0123456789abcdef";
    for (size_t i = 0; i < bytes; ++i) {
        unsigned char b = 0;
        if (!urandom.read(reinterpret_cast<char *>(&b), 1)) b = static_cast<unsigned char>(std::random_device{}());
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

std::string select_runtime_name(const Config &config, const Environment &env) {
    if (config.is_explicit("core.runtime")) return config.runtime();
    // OpenHands defaults to docker; without a Docker engine the daemonless sandbox is the useful default.
    std::string socket = config.get_string("sandbox.docker_socket", "/var/run/docker.sock");
    auto host = env.find("DOCKER_HOST");
    bool docker = (host != env.end() && !host->second.empty()) || fs::exists(socket);
    return docker ? "docker" : "sandbox";
}

namespace {

struct ModuleHandle {
    boost::dll::shared_library library;
    const ah_runtime_entry_t *entry = nullptr;
};

// The sandbox's user as OpenHands' DockerRuntime picks it: RUNTIME_USERNAME / RUNTIME_UID, else
// openhands/1000 when run_as_openhands, else root/0 — except that an explicit `sandbox.user_id`
// (SANDBOX_USER_ID) is openhands' uid (OpenHands parses it but runs as 1000; docs/compat.md). Backends
// that must run as the caller substitute it (see each backend).
std::pair<std::string, int> sandbox_user(const Config &config, const Environment &env) {
    bool as_openhands = config.get_bool("core.run_as_openhands");
    std::string user = as_openhands ? "openhands" : "root";
    int uid = as_openhands ? 1000 : 0;
    if (as_openhands && config.is_explicit("sandbox.user_id")) uid = static_cast<int>(config.get_number("sandbox.user_id", 1000));
    if (auto it = env.find("RUNTIME_USERNAME"); it != env.end() && !it->second.empty()) user = it->second;
    if (auto it = env.find("RUNTIME_UID"); it != env.end() && !it->second.empty()) {
        try {
            uid = std::stoi(it->second);
        } catch (...) {
        }
    }
    return {user, uid};
}

}  // namespace

struct Runtime::Impl {
    ah_runtime_host_t host{};  // the C view handed to the backend; host_data leads back here
    ah_runtime_info_t info{};
    RuntimeOptions options;
    Environment env;
    std::string runtime_name, module_name, session_id, install_dir, host_command_json, env_json, api_key;
    std::string url, endpoint_key, runtime_id, last_status, last_error, state_dir, workspace;
    std::vector<std::string> plugins;  // the host's plugins (from the record when reattaching)
    std::vector<std::string> plugin_dirs;  // absolute; the host's --plugin-dir, made visible by the backend
    std::string in_process_url;        // attached while connected to an in-process runtime
    std::deque<std::string> config_strings;  // stable storage for config_get answers
    std::mutex config_mutex;
    ModuleHandle module;
    ah_runtime_t *runtime = nullptr;
    std::unique_ptr<WireClient> wire;
    bool connected = false, closed = false;

    static Impl *of(const ah_runtime_host_t *h) { return static_cast<Impl *>(h->host_data); }

    void status(const std::string &s, const std::string &detail) {
        last_status = s;
        if (options.on_status) options.on_status(s, detail);
    }
    void log(int level, const std::string &msg) {
        if (options.on_log) options.on_log(level, msg);
    }
    std::string take_error(const std::string &fallback) {
        std::string e = last_error.empty() ? fallback : last_error;
        last_error.clear();
        return e;
    }
    void check(ah_status_t st, const char *what) {
        if (st == AH_OK) return;
        std::string msg = take_error("status " + std::to_string(st));
        status(AH_STATUS_ERROR, msg);
        throw RuntimeError("Runtime " + runtime_name + " failed to " + what + ": " + msg);
    }

    // --- host services -------------------------------------------------------------------------
    static void svc_log(const ah_runtime_host_t *h, ah_log_level_t level, const char *msg) {
        of(h)->log(level, msg ? msg : "");
    }
    static void svc_set_error(const ah_runtime_host_t *h, const char *msg) { of(h)->last_error = msg ? msg : ""; }
    static void svc_set_status(const ah_runtime_host_t *h, const char *s, const char *detail) {
        of(h)->status(s ? s : "", detail ? detail : "");
    }
    static const char *svc_config_get(const ah_runtime_host_t *h, const char *key) {
        if (!key) return nullptr;
        Impl *self = of(h);
        auto v = self->options.config.get_text(key);
        if (!v) return nullptr;
        std::lock_guard lock(self->config_mutex);
        self->config_strings.push_back(*v);
        return self->config_strings.back().c_str();
    }
    struct HttpResultData {
        std::string body, error;
        std::vector<std::string> header_lines;
        std::vector<const char *> header_list{nullptr};  // NULL-terminated view of header_lines
    };
    static ah_status_t svc_http_request(const ah_runtime_host_t *, const ah_http_call_t *call, ah_http_result_t *result) {
        if (!call || !result || !call->url) return AH_ERR_INVALID_ARGUMENT;
        auto *data = new HttpResultData();
        result->struct_size = sizeof(ah_http_result_t);
        result->status = 0;
        result->result_data = data;
        result->body = {"", 0};
        result->error = "";
        ah_status_t st = AH_OK;
        try {
            auto [endpoint, path] = split_url(call->url);
            HttpConnection conn(endpoint);
            HttpRequest req;
            req.method = call->method ? call->method : "GET";
            req.path = path;
            req.timeout_s = call->timeout_s > 0 ? call->timeout_s : 60.0;
            if (call->body.ptr && call->body.len) req.body.assign(call->body.ptr, call->body.len);
            for (auto p = call->headers; p && *p; ++p) {
                auto h = runtime_support::split_header_line(*p);
                if (!h) continue;
                if (h->first == "Content-Type" || h->first == "content-type") req.content_type = h->second;
                else req.headers.push_back(std::move(*h));
            }
            HttpResponse r = conn.send(req);
            result->status = r.status;
            data->body = std::move(r.body);
            for (const auto &[name, value] : r.headers) data->header_lines.push_back(name + ": " + value);
            data->header_list.clear();
            for (const auto &line : data->header_lines) data->header_list.push_back(line.c_str());
            data->header_list.push_back(nullptr);
        } catch (const TransportError &e) {
            data->error = e.what();
            st = e.kind() == TransportFailure::Timeout ? AH_ERR_TIMEOUT : AH_ERR_IO;
        } catch (const std::exception &e) {
            data->error = e.what();
            st = AH_ERR_IO;
        }
        result->body = {data->body.data(), data->body.size()};
        result->error = data->error.c_str();
        return st;
    }
    static void svc_http_result_free(const ah_runtime_host_t *, ah_http_result_t *result) {
        if (!result) return;
        delete static_cast<HttpResultData *>(result->result_data);
        result->result_data = nullptr;
        result->body = {"", 0};
        result->error = "";
    }
    static ah_status_t svc_wait_alive(const ah_runtime_host_t *h, const char *url, const char *key, double timeout_s) {
        try {
            WireClient probe(url ? url : "", key ? key : "", of(h)->options.wire_policy);
            return probe.wait_alive(timeout_s) ? AH_OK : AH_ERR_TIMEOUT;
        } catch (const std::exception &e) {
            of(h)->last_error = e.what();
            return AH_ERR_INVALID_ARGUMENT;
        }
    }
    static const char *const *svc_http_response_headers(const ah_runtime_host_t *, const ah_http_result_t *result) {
        static const char *const kNone[] = {nullptr};
        if (!result || !result->result_data) return kNone;
        return static_cast<const HttpResultData *>(result->result_data)->header_list.data();
    }
    static const void *svc_get_extension(const ah_runtime_host_t *, const char *id) {
        static const ah_ext_http_response_headers_t kHeaders{sizeof(ah_ext_http_response_headers_t), svc_http_response_headers};
        if (id && std::string_view(id) == AH_EXT_HTTP_RESPONSE_HEADERS) return &kHeaders;
        return nullptr;
    }

    void build_host_view() {
        info.struct_size = sizeof(info);
        info.session_id = session_id.c_str();
        info.install_dir = install_dir.c_str();
        info.host_command_json = host_command_json.c_str();
        info.env_json = env_json.c_str();
        host.struct_size = sizeof(host);
        host.abi_version = AH_ABI_VERSION_INIT;
        host.host_data = this;
        host.info = &info;
        host.log = svc_log;
        host.set_error = svc_set_error;
        host.set_status = svc_set_status;
        host.config_get = svc_config_get;
        host.http_request = svc_http_request;
        host.http_result_free = svc_http_result_free;
        host.wait_alive = svc_wait_alive;
        host.get_extension = svc_get_extension;
    }

    void build_host_command() {
        const Config &c = options.config;
        json args = json::array({"--working-dir", c.get_string("core.workspace_mount_path_in_sandbox", "/workspace")});
        if (!options.plugins.empty() && (c.get_bool("sandbox.initialize_plugins") || !c.is_explicit("sandbox.initialize_plugins"))) {
            args.push_back("--plugins");
            for (const auto &p : options.plugins) args.push_back(p);
        }
        auto [user, uid] = sandbox_user(c, env);
        args.push_back("--username");
        args.push_back(user);
        args.push_back("--user-id");
        args.push_back(std::to_string(uid));
        if (auto eval = c.get_text("sandbox.browsergym_eval_env")) {
            args.push_back("--browsergym-eval-env");
            args.push_back(*eval);
        }
        if (!c.get_bool("core.enable_browser")) args.push_back("--no-enable-browser");
        for (const auto &d : plugin_dirs) {
            args.push_back("--plugin-dir");
            args.push_back(d);
        }
        host_command_json = args.dump();

        // The host process starts with the sandbox's variables too (a backend like docker or a remote API
        // passes them at creation); connect() then sets them in bash, ~/.bashrc and the kernel.
        json e = json::object();
        for (const auto &[k, v] : initial_env()) e[k] = v;
        for (const auto &[k, v] : startup_env_vars(c)) e[k] = v;
        for (const auto &[k, v] : options.env) e[k] = v;
        if (!e.contains("SESSION_API_KEY")) e["SESSION_API_KEY"] = api_key;
        api_key = e["SESSION_API_KEY"].get<std::string>();
        env_json = e.dump();
    }

    Environment initial_env() const {
        Environment env = initial_sandbox_env(options.config);
        // OpenHands exports the provider tokens into its sandboxes: here those of the client's environment.
        if (options.config.get_bool("sandbox.export_git_tokens"))
            for (const auto &[k, v] : git_token_env(git_tokens_from_env(this->env))) env[k] = v;
        for (const auto &[k, v] : options.sandbox_env) env[k] = v;
        return env;
    }

    bool jupyter() const { return std::find(plugins.begin(), plugins.end(), "jupyter") != plugins.end(); }

    const ah_ext_runtime_reclaim_t *reclaimer() const {
        auto *ext = static_cast<const ah_ext_runtime_reclaim_t *>(runtime->get_extension(runtime, AH_EXT_RUNTIME_RECLAIM));
        return ext && ext->struct_size >= sizeof(ah_ext_runtime_reclaim_t) ? ext : nullptr;
    }

    // OpenHands' setup_initial_env plus its clone_or_init_repo, once the host is alive.
    void setup_sandbox() {
        const Config &c = options.config;
        client::add_env_vars(*wire, initial_env(), jupyter());
        client::add_env_vars(*wire, startup_env_vars(c), jupyter());
        if (runtime_name != "cli") {
            std::string why;
            if (!configure_git_user(*wire, c.get_string("core.git_user_name", "openhands"),
                                    c.get_string("core.git_user_email", "openhands@all-hands.dev"), &why))
                log(AH_LOG_WARNING, "git config of the user failed: " + why);
        }
        std::string repo = c.get_string("sandbox.selected_repo", "");
        if (!repo.empty()) {
            status(AH_STATUS_SETTING_UP_WORKSPACE, "cloning " + repo);
            RepoSpec spec;
            try {
                spec = parse_repo_spec(repo);
            } catch (const std::invalid_argument &e) {
                throw RuntimeError(e.what());
            }
            client::clone_repo(*wire, spec, workspace_dir(), git_tokens_from_env(current_environment()));
        } else if (c.get_bool("core.init_git_in_empty_workspace")) {
            init_repo(*wire, workspace_dir());
        }
    }

    const std::string &workspace_dir() {
        if (workspace.empty()) workspace = sandbox_working_dir(*wire);
        return workspace;
    }

    void load_module(const RuntimeModule &mod) {
        module_name = mod.name;
        try {
            module.library = boost::dll::shared_library(mod.library_path, boost::dll::load_mode::rtld_now |
                                                                              boost::dll::load_mode::rtld_local);
        } catch (const std::exception &e) {
            throw RuntimeError("Cannot load runtime module " + mod.library_path + ": " + e.what());
        }
        if (!module.library.has(AH_RUNTIME_ENTRY_SYMBOL))
            throw RuntimeError("Runtime module " + mod.library_path + " does not export " AH_RUNTIME_ENTRY_SYMBOL);
        auto &fn = module.library.get<const ah_runtime_entry_t *()>(AH_RUNTIME_ENTRY_SYMBOL);
        const ah_runtime_entry_t *entry = fn();
        if (!entry) throw RuntimeError("Runtime module " + mod.name + " returned no entry");
        auto v = entry->abi_version;
        auto ver = [](uint32_t a, uint32_t b, uint32_t c) {
            return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
        };
        if (v.major != AH_ABI_VERSION_MAJOR || v.minor > AH_ABI_VERSION_MINOR)
            throw RuntimeError("Runtime module " + mod.name + " was built for ABI " + ver(v.major, v.minor, v.patch) +
                               ", this client implements " +
                               ver(AH_ABI_VERSION_MAJOR, AH_ABI_VERSION_MINOR, AH_ABI_VERSION_PATCH));
        if (entry->struct_size < offsetof(ah_runtime_entry_t, create) + sizeof(entry->create) || !entry->create)
            throw RuntimeError("Runtime module " + mod.name + " has an incomplete entry");
        if (!entry->name || mod.name != entry->name)
            throw RuntimeError("Runtime module " + mod.library_path + " calls itself '" + (entry->name ? entry->name : "") +
                               "' but its manifest says '" + mod.name + "'");
        module.entry = entry;
    }
};

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

namespace {

// The client's plugin directories as the host gets them: absolute, existing, and only for a backend that
// shows them to its host (its manifest's "plugin_dirs"); a host on another machine could not see them.
std::vector<std::string> plugin_dirs_for(const RuntimeModule &mod, const std::string &runtime_name,
                                         const std::vector<std::string> &dirs) {
    std::vector<std::string> out;
    if (dirs.empty()) return out;
    if (!mod.plugin_dirs)
        throw RuntimeError("Runtime " + runtime_name + " cannot load plugins from a directory of this machine (--plugin-dir): "
                           "its host does not see this machine's files; install the plugin in the sandbox's image instead");
    for (const auto &d : dirs) {
        std::error_code ec;
        fs::path p = fs::canonical(d, ec);
        if (ec || !fs::is_directory(p)) throw RuntimeError("plugin directory " + d + " does not exist");
        out.push_back(p.string());
    }
    return out;
}

}  // namespace

std::unique_ptr<Runtime> Runtime::create(RuntimeOptions options) {
    auto impl = std::make_unique<Impl>();
    impl->env = current_environment();
    impl->options = std::move(options);
    Impl &s = *impl;
    s.session_id = s.options.session_id.empty() ? random_hex(8) : s.options.session_id;
    s.plugins = s.options.plugins;
    s.install_dir = s.options.install_dir.empty() ? detect_install_dir() : s.options.install_dir;
    s.api_key = random_hex(16);
    s.options.wire_policy.default_action_timeout_s = s.options.config.get_number("sandbox.timeout", 120);
    // Backends store attach data next to the library's records; give them a real directory.
    s.state_dir = StateStore::default_dir(s.options.config.get_text("core.state_dir"));
    s.options.config.set("core.state_dir", s.state_dir);
    s.runtime_name = select_runtime_name(s.options.config, s.env);

    std::vector<std::string> dirs;
    json cfg_dirs = s.options.config.get("core.runtime_dirs");
    if (cfg_dirs.is_array())
        for (const auto &d : cfg_dirs)
            if (d.is_string()) dirs.push_back(d.get<std::string>());
    auto registry = RuntimeRegistry::scan(runtime_search_path(s.install_dir, dirs));
    for (const auto &w : registry.warnings()) s.log(2, w);
    const RuntimeModule &mod = registry.resolve(s.runtime_name);
    s.plugin_dirs = plugin_dirs_for(mod, s.runtime_name, s.options.plugin_dirs);
    s.load_module(mod);
    s.build_host_command();
    s.build_host_view();
    std::string wanted = s.runtime_name == "eventstream" ? "docker" : s.runtime_name;
    s.runtime = s.module.entry->create(&s.host, wanted.c_str());
    if (!s.runtime) throw RuntimeError("Runtime " + s.runtime_name + " could not be created: " + s.take_error("no reason given"));
    return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
}

Runtime::~Runtime() {
    try {
        if (impl_->connected && !impl_->closed) close();
    } catch (...) {
    }
    if (!impl_->in_process_url.empty()) detach_in_process(impl_->in_process_url);
    if (impl_->runtime) impl_->runtime->destroy(impl_->runtime);
    impl_->runtime = nullptr;
}

void Runtime::connect() {
    Impl &s = *impl_;
    if (s.connected) return;
    auto started = std::chrono::steady_clock::now();
    // A record of this session means the backend reattaches to a kept-alive sandbox: already set up.
    StateStore store(s.state_dir);
    auto record = store.get(s.session_id);
    if (record) {
        // ... unless that sandbox has ended (killed, machine rebooted): then this is a fresh start.
        if (auto *ext = s.reclaimer(); ext && ext->exists(s.runtime) == 0) {
            store.remove(s.session_id);
            record.reset();
        }
    }
    bool attached = record.has_value();
    const bool keep = s.options.config.get_bool("sandbox.keep_runtime_alive");
    // Until its record exists, a kept-alive start is known by a marker: a client killed mid-start
    // leaves it behind, and the next sweep stops what it had started (reclaim_abandoned_starts).
    std::optional<StateStore::Starting> starting;
    if (!attached && keep) starting.emplace(store.mark_starting(s.session_id, s.runtime_name));
    if (attached && s.plugins.empty() && record->contains("plugins") && (*record)["plugins"].is_array())
        for (const auto &p : (*record)["plugins"])
            if (p.is_string()) s.plugins.push_back(p.get<std::string>());
    s.check(s.runtime->connect(s.runtime), "start");
    ah_runtime_endpoint_t ep{};
    ep.struct_size = sizeof(ep);
    s.check(s.runtime->endpoint(s.runtime, &ep), "report its endpoint");
    s.url = ep.url ? ep.url : "";
    s.endpoint_key = ep.session_api_key ? ep.session_api_key : "";
    s.runtime_id = ep.runtime_id ? ep.runtime_id : "";
    try {
        if (s.url.rfind(AH_IN_PROCESS_URL_SCHEME, 0) == 0) {  // the `cli` runtime: no socket
            attach_in_process(s.url, static_cast<const ah_ext_runtime_in_process_t *>(
                                         s.runtime->get_extension(s.runtime, AH_EXT_RUNTIME_IN_PROCESS)));
            s.in_process_url = s.url;
        }
        s.wire = std::make_unique<WireClient>(s.url, s.endpoint_key, s.options.wire_policy);
    } catch (const std::exception &e) {
        s.status(AH_STATUS_ERROR, e.what());
        throw RuntimeError("Runtime " + s.runtime_name + " reported an unusable endpoint '" + s.url + "': " + e.what());
    }
    s.connected = true;
    s.closed = false;
    if (keep) {
        // A reattached session keeps the time its sandbox started: `ahctl ps` shows its real age.
        long long started_at = record ? record->value("started_at", 0LL) : 0LL;
        if (started_at <= 0) started_at = static_cast<long long>(std::time(nullptr));
        store.put({{"session_id", s.session_id}, {"runtime", s.runtime_name}, {"module", s.module_name},
                   {"url", s.url}, {"session_api_key", s.endpoint_key}, {"runtime_id", s.runtime_id},
                   {"plugins", s.plugins}, {"started_at", started_at}});
    }
    starting.reset();
    if (attached && !s.options.sandbox_env.empty()) {
        // Set up already; variables given for this connection (ahctl -s ID --env K=V) still apply.
        try {
            client::add_env_vars(*s.wire, s.options.sandbox_env, s.jupyter());
        } catch (const std::invalid_argument &e) {
            throw RuntimeError(std::string("Cannot set up the sandbox: ") + e.what());
        }
    }
    if (!attached) {
        try {
            s.setup_sandbox();
        } catch (const std::invalid_argument &e) {
            s.status(AH_STATUS_ERROR, e.what());
            throw RuntimeError(std::string("Cannot set up the sandbox: ") + e.what());
        } catch (const std::exception &e) {
            s.status(AH_STATUS_ERROR, e.what());
            throw;
        }
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    s.status(AH_STATUS_READY, s.runtime_name + " runtime ready in " + std::to_string(static_cast<int>(ms)) + " ms");
}

WireClient &Runtime::wire() {
    if (!impl_->wire) throw RuntimeError("Runtime is not connected");
    return *impl_->wire;
}

json Runtime::execute(const json &action, const std::string &session) {
    Impl &s = *impl_;
    auto *recovery = static_cast<const ah_ext_runtime_recovery_t *>(s.runtime->get_extension(s.runtime, AH_EXT_RUNTIME_RECOVERY));
    for (int attempt = 0;; ++attempt) {
        try {
            return wire().execute(action, session);
        } catch (const WireTimeout &) {
            throw;
        } catch (const WireError &e) {
            // The backend says what a sandbox error means (e.g. remote: 503 = paused, 404/502/504 = gone).
            if (!recovery || e.status() == 0) throw;
            int32_t verdict = recovery->on_sandbox_error(s.runtime, e.status());
            if (verdict == AH_RECOVERY_RETRY && attempt == 0) continue;
            if (verdict == AH_RECOVERY_REPORT) throw;
            std::string why = s.take_error(e.what());
            s.status(AH_STATUS_ERROR_RUNTIME_DISCONNECTED, why);
            throw RuntimeDisconnected("Runtime " + s.runtime_name + " disconnected: " + why, e.status(), e.detail());
        }
    }
}

void Runtime::add_env_vars(const Environment &vars) { client::add_env_vars(wire(), vars, impl_->jupyter()); }
bool Runtime::jupyter_loaded() const { return impl_->jupyter(); }
const std::string &Runtime::workspace_dir() {
    wire();
    return impl_->workspace_dir();
}
std::string Runtime::clone_repo(const std::string &spec) {
    RepoSpec parsed;
    try {
        parsed = parse_repo_spec(spec);
    } catch (const std::invalid_argument &e) {
        throw RuntimeError(e.what());
    }
    return client::clone_repo(wire(), parsed, workspace_dir(), git_tokens_from_env(current_environment()));
}

void Runtime::pause() { impl_->check(impl_->runtime->pause(impl_->runtime), "pause"); }
void Runtime::resume() {
    Impl &s = *impl_;
    s.check(s.runtime->resume(s.runtime), "resume");
    // A resumed sandbox may come back elsewhere (a new pod has a new IP): follow its endpoint.
    ah_runtime_endpoint_t ep{};
    ep.struct_size = sizeof(ep);
    if (s.runtime->endpoint(s.runtime, &ep) == AH_OK && ep.url && s.url != ep.url) {
        s.url = ep.url;
        s.endpoint_key = ep.session_api_key ? ep.session_api_key : "";
        s.wire = std::make_unique<WireClient>(s.url, s.endpoint_key, s.options.wire_policy);
    }
}

void Runtime::close() {
    Impl &s = *impl_;
    if (s.closed) return;
    s.closed = true;
    s.wire.reset();
    if (!s.in_process_url.empty()) detach_in_process(s.in_process_url);
    s.in_process_url.clear();
    ah_status_t st = s.runtime->close(s.runtime);
    if (!s.options.config.get_bool("sandbox.keep_runtime_alive")) StateStore(s.state_dir).remove(s.session_id);
    s.connected = false;
    if (st != AH_OK) s.check(st, "close");
    s.status(AH_STATUS_STOPPED, "");
}

void Runtime::stop_kept_alive() {
    Impl &s = *impl_;
    if (s.connected) {
        s.options.config.set("sandbox.keep_runtime_alive", false);
        close();
        return;
    }
    if (auto *ext = s.reclaimer()) {
        s.check(ext->discard(s.runtime), "stop");
    } else {
        s.options.config.set("sandbox.keep_runtime_alive", false);
        connect();  // reattaches
        close();    // stops
    }
    StateStore(s.state_dir).remove(s.session_id);
    s.closed = true;
    s.status(AH_STATUS_STOPPED, "");
}

std::optional<bool> Runtime::kept_alive_exists() {
    auto *ext = impl_->reclaimer();
    if (!ext) return std::nullopt;
    return ext->exists(impl_->runtime) != 0;
}

std::vector<std::string> Runtime::reclaim_leftovers(bool thorough) {
    Impl &s = *impl_;
    auto *ext = s.reclaimer();
    if (!ext) return {};
    std::vector<std::string> ended;
    auto collect = [](void *context, const char *session_id) {
        if (session_id) static_cast<std::vector<std::string> *>(context)->push_back(session_id);
    };
    s.check(ext->reclaim(s.runtime, thorough ? AH_RECLAIM_THOROUGH : 0, collect, &ended), "reclaim what ended sandboxes left");
    StateStore store(s.state_dir);
    for (const auto &sid : ended) store.remove(sid);
    return ended;
}

const std::string &Runtime::runtime_name() const { return impl_->runtime_name; }
const std::string &Runtime::module_name() const { return impl_->module_name; }
const std::string &Runtime::session_id() const { return impl_->session_id; }
const std::string &Runtime::url() const { return impl_->url; }
const std::string &Runtime::runtime_id() const { return impl_->runtime_id; }
const std::string &Runtime::last_status() const { return impl_->last_status; }
const Config &Runtime::config() const { return impl_->options.config; }

}  // namespace actionhost::client
