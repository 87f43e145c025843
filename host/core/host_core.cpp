#include "core/host_core.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "actions/file_actions.hpp"
#include "files/file_roots.hpp"
#include "http/body.hpp"
#include "http/web_view.hpp"
#include "terminal/terminal_shell.hpp"

#ifndef ACTIONHOST_VERSION
#define ACTIONHOST_VERSION "0.0.0"
#endif

namespace actionhost::host {
namespace {

size_t size_setting(HostEnvironment &env, const char *key, size_t def) {
    const char *v = env.config_get(key);
    if (v == nullptr || *v == '\0') return def;
    char *end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return (end && *end == '\0' && n > 0) ? static_cast<size_t>(n) : def;
}

std::string joined(const std::vector<std::string> &items, const char *sep) {
    std::string out;
    for (const auto &i : items) out += (out.empty() ? "" : sep) + i;
    return out;
}

}  // namespace

HostCore::HostCore(HostCoreSettings s) {
    const Options &o = s.options;
    registry_.scan(modules::module_search_path(s.install_dir, "plugins", o.plugin_dirs), modules::ModuleKind::Plugin);
    std::vector<const modules::Manifest *> modules;
    for (const auto &m : registry_.modules()) modules.push_back(&m);
    std::map<std::string, std::string> settings = o.settings;
    for (const auto &[k, v] : s.extra_settings) settings[k] = v;
    std::map<std::string, std::string> declared;
    std::vector<std::string> ignored;
    if (auto applied = apply_declared_options(o.plugin_flags, modules, declared, ignored); !applied)
        throw std::invalid_argument(applied.error().message);
    for (const auto &[k, v] : declared) settings[k] = v;  // a declared flag beats --set and the environment

    for (const auto &m : registry_.modules())
        if (m.autoload) start_plugins_.push_back(m.name);
    for (const auto &name : o.plugins) {
        if (registry_.find(name) == nullptr)
            throw std::invalid_argument("unknown plugin '" + name + "'; known plugins: " + joined(registry_.names(), ", "));
        if (std::find(start_plugins_.begin(), start_plugins_.end(), name) == start_plugins_.end()) start_plugins_.push_back(name);
    }
    // What plugins offer each other's interpreters (the editor's skills inside every kernel, say).
    std::vector<std::string> python_path, startup;
    for (const auto &name : start_plugins_) {
        const modules::Manifest &m = *registry_.find(name);
        for (const auto &dir : m.python_path) python_path.push_back((std::filesystem::path(m.dir) / dir).string());
        startup.insert(startup.end(), m.python_startup_imports.begin(), m.python_startup_imports.end());
    }
    settings["actionhost.plugins"] = joined(start_plugins_, " ");
    settings["actionhost.python_path"] = joined(python_path, ":");
    settings["actionhost.python_startup_imports"] = joined(startup, " ");

    env_ = std::make_unique<HostEnvironment>(HostEnvironment::Facts{o.working_dir, o.username, s.install_dir, ACTIONHOST_VERSION, s.user_id},
                                             settings);
    env_->log_sink = s.log_sink;
    env_->log_ring = &log_ring_;
    env_->streams = &streams_;
    for (const auto &i : registry_.invalid()) env_->log(AH_LOG_WARNING, "host", "ignoring " + i.path + ": " + i.error);
    for (const auto &flag : ignored)
        env_->log(AH_LOG_WARNING, "host", "ignoring the option " + flag + ": no installed plugin declares it");
    configure_file_roots(env_->config_get("ACTIONHOST_EDITOR_ROOTS") ? env_->config_get("ACTIONHOST_EDITOR_ROOTS") : "");
    router_ = std::make_unique<Router>(*env_, registry_, streams_);
    const char *key = env_->config_get("SESSION_API_KEY");
    session_key_ = key ? key : "";
    if (s.audit_fd >= 0) {
        audit_ = std::make_unique<audit::AuditRecorder>(s.audit_fd, session_key_);
        router_->set_audit(audit_.get());
    }
    api_.reset(new ApiContext{*router_, *env_, streams_, ApiKeyCheck(session_key_), {}, std::chrono::steady_clock::now(),
                              std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
                              size_setting(*env_, "ACTIONHOST_MAX_BODY_BYTES", kDefaultMaxBodyBytes),
                              size_setting(*env_, "ACTIONHOST_MAX_UPLOAD_BYTES", size_t{8} << 30)});
    api_->max_unzip_bytes = size_setting(*env_, "ACTIONHOST_MAX_UNZIP_BYTES", api_->max_unzip_bytes);
    // Every action a client can name is counted under its own name: the host's and the installed plugins'.
    std::vector<std::string> actions;
    for (const auto &spec : host_action_specs()) actions.push_back(spec.name);
    for (const auto &m : registry_.modules())
        if (m.kind == modules::ModuleKind::Plugin)
            actions.insert(actions.end(), m.provides.begin(), m.provides.end());
    action_metrics_ = std::make_unique<ActionMetrics>(actions);
    api_->action_metrics = action_metrics_.get();
    api_->cgroups = &cgroups_;
    api_->log_ring = &log_ring_;
    api_->audit = audit_.get();
}

HostCore::~HostCore() { shutdown(); }

common::Status HostCore::load_start_plugins() {
    if (auto isolation = router_->configure_isolation(); !isolation) return isolation;
    // The policy stage first: a bad [security] setting or a broken policy module stops the host before any
    // action could pass unjudged.
    auto policy = PolicyStage::create(*env_, registry_, streams_);
    if (!policy) return policy.as_failure();
    policy_ = std::move(policy).value();
    router_->set_policy(policy_.get());
    api_->policy = policy_.get();
    // A plugin whose image needs are missing does not stop the host: its actions say what to install.
    for (const auto &name : start_plugins_)
        if (auto loaded = router_->load(name); !loaded && !router_->lacks_needs(name)) return loaded;
    return common::ok();
}

void HostCore::enable_terminals() {
    TerminalSettings t;
    t.max_sessions = size_setting(*env_, "ACTIONHOST_MAX_TERMINALS", t.max_sessions);
    t.detached_timeout = std::chrono::seconds(size_setting(*env_, "ACTIONHOST_TERMINAL_DETACHED_TIMEOUT", static_cast<size_t>(t.detached_timeout.count())));
    t.spawn = terminal_shell_spawner(env_->facts().username, env_->facts().working_dir);
    terminals_ = std::make_unique<TerminalRegistry>(std::move(t));
    api_->terminals = terminals_.get();
    api_->web_view = std::make_shared<WebViewAccess>(api_->auth);
}

size_t HostCore::shutdown() {
    if (shut_down_) return 0;
    shut_down_ = true;
    if (terminals_) terminals_->close_all();
    if (policy_) policy_->stop();  // confirmation waits end now, not after their timeout
    streams_.close_all();
    log_ring_.close();
    const size_t grace_s = size_setting(*env_, "ACTIONHOST_SHUTDOWN_GRACE_SECONDS", 30);
    return router_->shutdown(std::chrono::seconds(grace_s));
}

}  // namespace actionhost::host
