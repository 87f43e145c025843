// Runtime's lifecycle: create (module, host command, host view), connect (fresh or reattached), pause,
// resume, close. The other jobs are in the files runtime_impl.hpp lists.
#include "actionhost/client/runtime.hpp"

#include <actionhost/ext/runtime_reclaim.h>
#include <actionhost/runtime.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "actionhost/client/in_process.hpp"
#include "actionhost/client/sandbox_env.hpp"
#include "actionhost/client/state_store.hpp"
#include "actionhost/client/images.hpp"
#include "config_schema.hpp"
#include "runtime_impl.hpp"
#include "actionhost/common/random.hpp"

namespace actionhost::client {

using nlohmann::json;
namespace fs = std::filesystem;

std::string random_hex(size_t bytes) { return common::random_hex(bytes); }

std::string select_runtime_name(const Config &config, const Environment &) {
    // OpenHands defaults to docker. Ours is the daemonless sandbox everywhere, a Docker engine on the
    // machine or not: docker only when asked for (core.runtime, RUNTIME, ahctl -r docker).
    if (config.is_explicit("core.runtime")) return config.runtime();
    return "sandbox";
}


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

// The [sandbox] network keys a backend does not take (its manifest's "network_keys" does not name them),
// when set: refused with the reason, never silently ignored (a user who asked for no network must not
// get the machine's, nor a secret meant to stay outside find itself forgotten). `network = "host"` (or
// true) asks for no restriction, which every sandbox has without the key: accepted.
void check_network_keys(const RuntimeModule &mod, const std::string &runtime_name, const Config &config) {
    struct Refusal {
        std::string given, why;
    };
    std::vector<Refusal> refused;
    const auto mode = config.get_text("sandbox.network");
    if (!mod.takes_network_key("network") && config.is_explicit("sandbox.network") && mode && *mode != "host" && *mode != "true")
        refused.push_back({"sandbox.network = \"" + *mode + "\"", "its sandbox's network is its provider's"});
    for (const char *list : {"allow_out", "deny_out"}) {
        const json v = config.get(std::string("sandbox.") + list);
        if (!mod.takes_network_key(list) && v.is_array() && !v.empty())
            refused.push_back({std::string("sandbox.") + list, "it has no egress filter of ours"});
    }
    if (const json v = config.get("sandbox.dns"); !mod.takes_network_key("dns") && v.is_array() && !v.empty())
        refused.push_back({"sandbox.dns", "its sandbox's resolver is its provider's"});
    // Secrets stay outside a sandbox only where an egress proxy of ours adds them on the way out.
    if (const json v = config.get("sandbox.secrets"); !mod.takes_network_key("secrets") && v.is_object() && !v.empty())
        refused.push_back({"sandbox.secrets", "only the sandbox runtime keeps secrets outside a sandbox (its egress proxy adds them)"});
    if (const auto ca = config.get_text("sandbox.upstream_ca_file"); !mod.takes_network_key("upstream_ca_file") && ca && !ca->empty())
        refused.push_back({"sandbox.upstream_ca_file", "it is the CA the sandbox runtime's egress proxy trusts for secrets' hosts; there is no such proxy here"});
    if (refused.empty()) return;
    std::string what;
    for (const auto &r : refused) what += (what.empty() ? "" : "; ") + r.given + " (" + r.why + ")";
    throw RuntimeError("Runtime " + runtime_name + " does not honour " + what + ". Unset " + (refused.size() == 1 ? "it" : "them") +
                       ", or use the sandbox runtime (-r sandbox)");
}

// The backend-specific [sandbox] keys (config_schema's backend_sandbox_keys) set for a backend whose
// manifest's "sandbox_keys" does not name them: refused, naming the backend and the runtimes that do
// honour them, never silently ignored (a volume the agent would not find, a memory limit that is not
// there, a GPU it does not get). Only keys set (config.toml, the environment, --set) count: a default
// asks for nothing.
void check_sandbox_keys(const RuntimeRegistry &registry, const RuntimeModule &mod, const std::string &runtime_name,
                        const Config &config) {
    std::vector<std::string> refused;
    for (const auto &key : detail::backend_sandbox_keys()) {
        if (mod.honours_sandbox_key(key) || !config.is_explicit("sandbox." + key)) continue;
        const json v = config.get("sandbox." + key);
        if (v.is_null() || (v.is_string() && v.get<std::string>().empty()) || (v.is_array() && v.empty()) ||
            (v.is_object() && v.empty()))
            continue;
        refused.push_back(key);
    }
    if (refused.empty()) return;
    std::string keys, others;
    for (const auto &k : refused) keys += (keys.empty() ? "sandbox." : ", sandbox.") + k;
    for (const auto &m : registry.modules()) {
        bool all = true;
        for (const auto &k : refused) all = all && m.honours_sandbox_key(k);
        if (all)
            for (const auto &r : m.runtimes) others += (others.empty() ? "" : ", ") + r;
    }
    std::string hint = "Unset " + std::string(refused.size() == 1 ? "it" : "them");
    if (std::find(refused.begin(), refused.end(), "volumes") != refused.end())
        hint += " (for the workspace alone: core.workspace_base, ahctl -w DIR)";
    hint += others.empty() ? "" : ", or use a runtime that honours " + std::string(refused.size() == 1 ? "it" : "them") + ": " + others;
    throw RuntimeError("Runtime " + runtime_name + " does not honour " + keys + " (its manifest's \"sandbox_keys\" does not name " +
                       (refused.size() == 1 ? "it" : "them") + "). " + hint);
}

// A backend that keeps secrets in its egress proxy, on the internet: the provider tokens become
// sandbox.secrets entries (a secret of the user's own of the same name wins) instead of variables inside.
// Returns whether they do; `skipped`: tokens that could not be kept outside (and are not given).
bool keep_git_tokens_outside(const RuntimeModule &mod, Config &c, const Environment &env, std::vector<std::string> *skipped) {
    if (!mod.takes_network_key("secrets") || c.get_string("sandbox.network", "") != "internet" || !c.get_bool("sandbox.export_git_tokens"))
        return false;
    json secrets = git_token_secrets(git_tokens_from_env(env), skipped);
    if (secrets.empty()) return true;
    const json given = c.get("sandbox.secrets");
    if (given.is_object())
        for (const auto &[name, entry] : given.items()) secrets[name] = entry;
    c.set("sandbox.secrets", secrets);
    return true;
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
    s.images_root = image_store_root(s.options.config);
    s.state_dir = StateStore::default_dir(s.options.config.get_text("core.state_dir"));
    s.options.config.set("core.state_dir", s.state_dir);
    s.runtime_name = select_runtime_name(s.options.config, s.env);

    std::vector<std::string> dirs;
    json cfg_dirs = s.options.config.get("core.runtime_dirs");
    if (cfg_dirs.is_array())
        for (const auto &d : cfg_dirs)
            if (d.is_string()) dirs.push_back(d.get<std::string>());
    auto registry = RuntimeRegistry::scan(runtime_search_path(s.install_dir, dirs));
    for (const auto &w : registry.warnings()) s.log(common::LogLevel::Warning, w);
    const RuntimeModule &mod = registry.resolve(s.runtime_name);
    s.plugin_dirs = plugin_dirs_for(mod, s.runtime_name, s.options.plugin_dirs);
    check_network_keys(mod, s.runtime_name, s.options.config);
    check_sandbox_keys(registry, mod, s.runtime_name, s.options.config);
    std::vector<std::string> skipped;
    s.git_tokens_outside = keep_git_tokens_outside(mod, s.options.config, s.env, &skipped);
    for (const auto &line : skipped) s.log(common::LogLevel::Warning, line);
    s.load_module(mod);
    s.build_host_command();
    s.build_host_view();
    std::string wanted = s.runtime_name == "eventstream" ? "docker" : s.runtime_name;
    s.create_runtime(wanted);
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

const std::string &Runtime::runtime_name() const { return impl_->runtime_name; }
const std::string &Runtime::module_name() const { return impl_->module_name; }
const std::string &Runtime::session_id() const { return impl_->session_id; }
const std::string &Runtime::url() const { return impl_->url; }
const std::string &Runtime::runtime_id() const { return impl_->runtime_id; }
const std::string &Runtime::last_status() const { return impl_->last_status; }
const Config &Runtime::config() const { return impl_->options.config; }

}  // namespace actionhost::client
