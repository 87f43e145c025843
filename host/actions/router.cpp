#include "actions/router.hpp"

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>
#include <actionhost/common/sanitizers.hpp>
#include <actionhost/modules/version_range.hpp>
#include <algorithm>
#include <chrono>

#include "actions/envelope.hpp"
#include "actions/file_actions.hpp"
#include "actions/policy_stage.hpp"
#include "audit/changed_files.hpp"
#include "http/stream_hub.hpp"
#include "modules/call_state.hpp"

namespace actionhost::host {
namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

RouteResult http_error(int status, const std::string &detail) { return {status, {{"detail", detail}}}; }

const modules::ActionSpec *host_action(const std::string &name) {
    for (const auto &spec : host_action_specs())
        if (spec.name == name) return &spec;
    return nullptr;
}

// 0-64 characters of [A-Za-z0-9_.-] (a std::regex here cost more than the rest of the routing).
bool valid_session_name(const std::string &name) {
    if (name.size() > 64) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-';
    });
}

}  // namespace

std::string RouteResult::serialised() const { return text.empty() ? common::dump_json(body) : text; }

bool RouteResult::is_error_observation() const {
    if (!text.empty()) return text_is_error;
    const auto it = body.is_object() ? body.find("observation") : body.end();
    return it != body.end() && it->is_string() && it->get_ref<const std::string &>() == "error";
}

Router::Router(HostEnvironment &env, modules::ModuleRegistry &registry, StreamHub &streams)
    : env_(env), registry_(registry), streams_(streams),
      needs_(env.facts().install_dir, [&env](const std::string &key) { return env.config_get(key); }) {}

Router::~Router() { shutdown(); }

common::Status Router::load(const std::string &name) {
    std::lock_guard lock(modules_mu_);
    std::vector<std::string> chain;
    return load_locked(name, chain);
}

common::Status Router::load_locked(const std::string &name, std::vector<std::string> &chain) {
    if (modules_.count(name)) return common::ok();
    if (auto it = refused_.find(name); it != refused_.end()) return common::fail(it->second);
    const modules::Manifest *m = registry_.find(name);
    if (m == nullptr) {
        std::string known;
        for (const auto &n : registry_.names()) known += (known.empty() ? "" : ", ") + n;
        return common::fail("unknown plugin '" + name + "'; known plugins: " + known);
    }
    if (std::find(chain.begin(), chain.end(), name) != chain.end())
        return common::fail("plugin '" + name + "' requires itself (cycle)");
    chain.push_back(name);
    for (const auto &dep : m->requires_plugins) {
        if (auto loaded = load_locked(dep, chain); !loaded)
            return common::fail(refused_[name] = "plugin '" + name + "' requires '" + dep + "': " + loaded.error().message);
        // The manifest's range was checked when it was parsed; the loaded dependency must be in it.
        const std::string &range_text = m->plugin_ranges.count(dep) ? m->plugin_ranges.at(dep) : std::string();
        if (auto range = modules::VersionRange::parse(range_text); range && !range.value().any()) {
            const std::string found = registry_.find(dep)->version;
            if (!range.value().contains(found))
                return common::fail(refused_[name] = "plugin '" + name + "' requires '" + dep + "' " + range_text + ", but the one found is " +
                                                     found + " (" + registry_.find(dep)->dir + ")");
        }
    }
    const std::vector<NeedStatus> needs = needs_.check(*m);
    if (auto met = needs_met(name, needs); !met) {
        env_.log(AH_LOG_WARNING, "host", met.error().message);
        lacking_needs_.push_back(name);
        return common::fail(refused_[name] = met.error().message);
    }
    for (const auto &n : needs)
        if (!n.path.empty()) env_.set("needs." + n.need.name, n.path);
    const bool isolated = is_isolated(*m, isolation_);
    auto module = isolated ? PluginModule::load_isolated(*m, env_, isolation_settings_for(*m, env_, isolation_))
                           : PluginModule::load(*m, env_);
    if (!module) {
        env_.log(AH_LOG_ERROR, "host", module.error().message);
        return common::fail(refused_[name] = module.error().message);
    }
    env_.log(AH_LOG_INFO, "host", "loaded plugin " + name + " " + m->version + " from " + m->library_path() +
                                      (isolated ? " in a process of its own" : ""));
    modules_[name] = std::move(module).value();
    return common::ok();
}

common::Status Router::configure_isolation() {
    auto config = read_isolation_config(env_, registry_);
    if (!config) return config.as_failure();
    std::lock_guard lock(modules_mu_);
    isolation_ = std::move(config).value();
    return common::ok();
}

std::vector<std::string> Router::loaded_names() const {
    std::lock_guard lock(modules_mu_);
    std::vector<std::string> out;
    for (const auto &[n, _] : modules_) out.push_back(n);
    return out;
}

bool Router::lacks_needs(const std::string &name) const {
    std::lock_guard lock(modules_mu_);
    return std::find(lacking_needs_.begin(), lacking_needs_.end(), name) != lacking_needs_.end();
}

nlohmann::json Router::unmet_needs() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto &name : registry_.names()) {
        const modules::Manifest *m = registry_.find(name);
        if (m == nullptr || m->kind != modules::ModuleKind::Plugin) continue;
        for (const auto &n : needs_.check(*m))
            if (!n.met) out.push_back(unmet_need_json(name, n));
    }
    return out;
}

std::shared_ptr<Router::Session> Router::session(const std::string &name) {
    std::lock_guard lock(sessions_mu_);
    auto &s = sessions_[name];
    if (!s) {
        s = std::make_shared<Session>();
        s->cwd = env_.facts().working_dir;
    }
    return s;
}

common::Result<PluginModule *> Router::loaded(const std::string &name) {
    std::lock_guard lock(modules_mu_);
    if (auto it = modules_.find(name); it != modules_.end()) return it->second.get();
    // Installed but not named on the command line: load it now, on the first action that needs it.
    std::vector<std::string> chain;
    if (auto loaded = load_locked(name, chain); !loaded) return loaded.as_failure();
    return modules_[name].get();
}

bool Router::disabled(const modules::Manifest &m) {
    if (m.disabled_when.empty()) return false;
    for (const auto &[key, value] : m.disabled_when) {
        const char *v = env_.config_get(key);
        if (v == nullptr || value != v) return false;
    }
    return true;
}

RouteResult Router::unavailable(const modules::Manifest &m, const std::string &why) {
    // What the image lacks is said as it is: the package to install, not the plugin's generic refusal.
    if (lacks_needs(m.name)) return {200, common::error_observation(why)};
    if (m.unavailable_error.empty()) return http_error(500, "Internal server error: " + why);
    env_.log(AH_LOG_WARNING, "host", m.name + " unavailable: " + why);
    return {200, common::error_observation(m.unavailable_error)};
}

RouteLease::~RouteLease() {
    if (module_ != nullptr) module_->leave();
    if (router_ != nullptr) router_->end_lease();
}

void Router::end_lease() {
    std::lock_guard lock(inflight_mu_);
    --inflight_;
    inflight_cv_.notify_all();
}

RouteLease Router::route_owner(const std::string &path) {
    {
        std::lock_guard lock(inflight_mu_);
        if (stopping_) return {};
        ++inflight_;
    }
    PluginModule *found = route_module(path);
    if (found == nullptr) {
        end_lease();
        return {};
    }
    return RouteLease(this, found);
}

PluginModule *Router::route_module(const std::string &path) {
    std::lock_guard lock(modules_mu_);
    auto declared = [&](const modules::Manifest &m) {
        return std::find(m.http_routes.begin(), m.http_routes.end(), path) != m.http_routes.end();
    };
    for (auto &[_, m] : modules_)
        if (declared(m->manifest()) && m->answers(path)) return m.get();
    // Installed with "load_on_route" but not loaded yet: load it now, as an action loads its plugin.
    const modules::Manifest *man = registry_.route_loader_of(path);
    if (man == nullptr || modules_.count(man->name)) return nullptr;
    std::vector<std::string> chain;
    if (auto loaded = load_locked(man->name, chain); !loaded) {
        env_.log(AH_LOG_ERROR, "host", "cannot serve " + path + ": " + loaded.error().message);
        return nullptr;
    }
    PluginModule *m = modules_[man->name].get();
    return m->answers(path) ? m : nullptr;
}

RouteResult Router::execute(nlohmann::json &action, const std::string &session_name, const std::string &request_id,
                            const std::string &peer) {
    audit::ActionAudit audit(audit_, action, session_name, audit::Caller{peer, request_id});
    RouteResult result = route_action(action, session_name, request_id, audit);
    audit.finish(result);
    return result;
}

RouteResult Router::route_action(nlohmann::json &action, const std::string &session_name, const std::string &request_id,
                                 audit::ActionAudit &audit) {
    if (!valid_session_name(session_name))
        return http_error(422, "\"session\" must be 0-64 characters of [A-Za-z0-9_.-]");
    {
        std::lock_guard lock(inflight_mu_);
        if (stopping_) return http_error(503, "The runtime is shutting down");
        ++inflight_;
    }
    struct InflightGuard {
        Router *r;
        ~InflightGuard() {
            std::lock_guard lock(r->inflight_mu_);
            --r->inflight_;
            r->inflight_cv_.notify_all();
        }
    } guard{this};

    auto parsed = parse_envelope(std::move(action));
    if (!parsed) return http_error(500, "Internal server error: " + parsed.error().message);
    Envelope &e = parsed.value();
    // Who takes the action: a plugin whose declaration's "when" these arguments match, else the host's own
    // action of that name, else a plugin declaring it without "when". The arguments are then checked
    // against that declaration, defaults filled, before anyone sees them.
    const auto declared = registry_.declaration_of(e.action, e.args);
    const modules::ActionSpec *own = host_action(e.action);
    const bool to_plugin = declared && (!declared->spec->when.empty() || own == nullptr);
    const modules::ActionSpec *spec = to_plugin ? declared->spec : own;
    if (spec == nullptr) {
        if (is_client_only_action(e.action))
            return http_error(500, "Internal server error: the action '" + e.action + "' is not executed by the runtime");
        return http_error(500, "Internal server error: '" + e.action + "' is not a valid action type");
    }
    if (auto valid = spec->validate(e.args, shared_action_args()); !valid)
        return http_error(500, "Internal server error: " + valid.error().message);

    auto s = session(session_name);
    // One action at a time per session, as OpenHands serialises actions; the one exception is a call the
    // provider declares an interrupt ("interrupt_when": the C-c key of `run`): while another action runs it
    // goes straight to the provider (one such call at a time), so a client whose own request still waits
    // for a blocking command can stop it. On an idle session it runs like any other action.
    std::unique_lock run_lock(s->run_mu, std::defer_lock);
    std::unique_lock interrupt_lock(s->interrupt_mu, std::defer_lock);
    const bool beside = to_plugin && spec->interrupts(e.args) && !run_lock.try_lock();
    if (beside) interrupt_lock.lock();
    else if (!run_lock.owns_lock()) run_lock.lock();
    last_action_start_ = now_s();
    std::string cwd;
    {
        std::lock_guard lock(s->cwd_mu);
        cwd = s->cwd;
    }
    if (audit.recording()) audit.set_files(audit::files_changed_by(e.action, e.args, cwd));
    if (policy_ == nullptr) {
        if (audit.recording()) audit.set_policy({{"decision", "allow"}, {"rule", "no policy"}});
    } else {
        PolicyDecision decided;
        auto refused = policy_->check({e.action, e.args, session_name, cwd, request_id, beside, &decided});
        if (audit.recording()) audit.set_policy(to_json(decided));
        if (refused) return std::move(*refused);
    }
    if (!to_plugin) {
        const FileActionContext ctx{cwd, env_.facts().user_id};
        return {200, e.action == "write" ? write_action(e.args, ctx) : read_action(e.args, ctx)};
    }
    const modules::Manifest &provider = *declared->module;
    if (disabled(provider)) return unavailable(provider, "the plugin " + provider.name + " is disabled by its options");
    auto m = loaded(provider.name);
    if (!m) return unavailable(provider, m.error().message);
    action = std::move(e).normalised();  // moves args only; released by the caller, after the answer
    return run_plugin(*m.value(), e.action, action, session_name, *s, request_id, beside);
}

RouteResult Router::run_plugin(PluginModule &module, const std::string &action, const nlohmann::json &envelope,
                               const std::string &session_name, Session &s, const std::string &request_id,
                               bool beside) {
    const std::string name = module.manifest().name;
    const std::string json_text = common::dump_json(envelope);
    std::string cwd;
    {
        std::lock_guard lock(s.cwd_mu);
        cwd = s.cwd;
    }
    ah_call call;
    call.session = session_name;
    call.streams = beside ? nullptr : &streams_;
    ah_action_call_t c{};
    c.struct_size = sizeof(ah_action_call_t);
    c.call = &call;
    c.action_json = ah_bytes_t{json_text.data(), json_text.size()};
    c.action = action.c_str();
    c.session = session_name.c_str();
    c.cwd = cwd.c_str();
    c.request_id = request_id.c_str();

    // Events are built only when someone follows the session: dumping a large observation again for
    // nobody costs as much as the action itself.
    // An interrupt beside a running action publishes nothing: followers see that action's events only,
    // one action_start ... action_end at a time.
    if (!beside && streams_.has_followers(session_name))
        streams_.publish(session_name, "action_start", common::dump_json({{"action", envelope}}));
    ah_status_t st;
    {
        LiveCallGuard live(&call);
        PluginModule::Busy busy(module);
        st = module.execute(c);
    }
    nlohmann::json obs;    // the answer when the host makes it (an error), or for followers
    std::string verbatim;  // the plugin's text, when it is the answer unchanged
    std::string working_dir;
    bool verbatim_is_error = false;
    if (st != AH_OK) {
        const std::string err = call.error.empty() ? "status " + std::to_string(st) : call.error;
        obs = common::error_observation("The " + name + " plugin failed to execute the action: " + err);
    } else if (!call.observation) {
        env_.log(AH_LOG_PLUGIN_MISBEHAVING, name, "execute returned AH_OK without an observation");
        obs = common::error_observation("The " + name + " plugin returned no observation");
    } else if (auto facts = common::inspect_observation(*call.observation); !facts) {
        env_.log(AH_LOG_PLUGIN_MISBEHAVING, name,
                 "returned an observation that is not a JSON object with string \"observation\" and \"content\": " +
                     facts.error().message);
        obs = common::error_observation("The " + name + " plugin returned an invalid observation");
    } else {
        // Checked in one pass without building the document: the text goes out as it came.
        verbatim_is_error = facts.value().is_error;
        working_dir = std::move(facts).value().working_dir;
        verbatim = std::move(*call.observation);
    }
    // The session's directory follows what any observation reports in extras.metadata.working_dir (the
    // shell's, in OpenHands' command observations): read/write/edit resolve relative paths against it.
    if (!working_dir.empty()) {
        std::lock_guard lock(s.cwd_mu);
        s.cwd = std::move(working_dir);
    }
    if (!beside && streams_.has_followers(session_name)) {
        const std::string observation = verbatim.empty() ? common::dump_json(obs) : verbatim;
        streams_.publish(session_name, "action_end", "{\"observation\":" + observation + "}");
    }
    return {200, std::move(obs), std::move(verbatim), verbatim_is_error};
}

std::vector<std::string> Router::refused_names() const {
    std::lock_guard lock(modules_mu_);
    std::vector<std::string> out;
    for (const auto &[n, _] : refused_) out.push_back(n);
    return out;
}

size_t Router::session_count() {
    std::lock_guard lock(sessions_mu_);
    return sessions_.size();
}

size_t Router::shutdown(std::chrono::milliseconds grace) {
    {
        std::lock_guard lock(inflight_mu_);
        if (stopping_ && modules_.empty()) return 0;
        stopping_ = true;
    }
    std::vector<PluginModule *> mods;
    {
        std::lock_guard lock(modules_mu_);
        for (auto &[_, m] : modules_) mods.push_back(m.get());
    }
    for (auto *m : mods) m->shutdown();
    {
        std::unique_lock lock(inflight_mu_);
        inflight_cv_.wait_for(lock, grace, [&] { return inflight_ == 0; });
    }
    size_t abandoned = 0;
    std::lock_guard lock(modules_mu_);
    for (auto &[name, m] : modules_) {
        if (const int calls = m->calls_running(); calls > 0) {
            env_.log(AH_LOG_PLUGIN_MISBEHAVING, name,
                     std::to_string(calls) + " call(s) still running " + std::to_string(grace.count() / 1000) +
                         " s after shutdown: the plugin is left loaded, never destroyed under a running call");
            common::never_freed(m.release());  // destroying it now would pull the code from under the call
            abandoned += static_cast<size_t>(calls);
        }
    }
    // Destroy in reverse load order is not tracked; plugins do not depend on each other's lifetime.
    modules_.clear();
    return abandoned;
}

}  // namespace actionhost::host
