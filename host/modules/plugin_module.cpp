#include "modules/plugin_module.hpp"

#include <actionhost/common/json_io.hpp>
#include <actionhost/ext/partial_streams.h>
#include <cstddef>
#include <string_view>

#include "http/stream_hub.hpp"
#include "modules/call_state.hpp"
#include "modules/isolated_plugin.hpp"
#include "modules/json_extension.hpp"

namespace actionhost::host {

namespace {

void svc_log(const ah_host_t *h, ah_log_level_t level, const char *msg) {
    auto *ctx = PluginHostContext::from(h);
    ctx->env->log(level, ctx->plugin_name, msg ? msg : "(null)");
}

void svc_set_error(const ah_host_t *h, ah_call_t *call, const char *msg) {
    auto *ctx = PluginHostContext::from(h);
    std::string text = msg ? msg : "(null)";
    if (call == nullptr) {
        std::lock_guard lock(ctx->mu);
        ctx->last_error[std::this_thread::get_id()] = text;
        return;
    }
    if (!LiveCalls::with(call, [&](ah_call *c) {
            std::lock_guard lock(c->mu);
            c->error = text;
        }))
        ctx->env->log(AH_LOG_PLUGIN_MISBEHAVING, ctx->plugin_name, "set_error on a call that is not running");
}

ah_status_t svc_set_observation(const ah_host_t *h, ah_call_t *call, ah_bytes_t json) {
    auto *ctx = PluginHostContext::from(h);
    if (json.ptr == nullptr && json.len != 0) return AH_ERR_INVALID_ARGUMENT;
    const bool ok = LiveCalls::with(call, [&](ah_call *c) {
        std::lock_guard lock(c->mu);
        c->observation = std::string(json.ptr ? json.ptr : "", json.len);
    });
    if (!ok) {
        ctx->env->log(AH_LOG_PLUGIN_MISBEHAVING, ctx->plugin_name, "set_observation on a call that is not running");
        return AH_ERR_STATE;
    }
    return AH_OK;
}

// One "output" event of /stream; `stream` ("stdout"/"stderr") only for chunks a plugin marked, so the
// event of an unmarked chunk keeps the shape followers knew before.
ah_status_t publish_partial(const ah_host_t *h, ah_call_t *call, const char *stream, ah_bytes_t chunk) {
    auto *ctx = PluginHostContext::from(h);
    if (chunk.ptr == nullptr && chunk.len != 0) return AH_ERR_INVALID_ARGUMENT;
    const bool ok = LiveCalls::with(call, [&](ah_call *c) {
        if (c->relay) {
            if (chunk.len == 0) return;
            const int marked = stream == nullptr ? 0 : std::string_view(stream) == "stdout" ? AH_OUTPUT_STDOUT : AH_OUTPUT_STDERR;
            return c->relay(marked, std::string_view(chunk.ptr, chunk.len));
        }
        if (c->streams == nullptr || chunk.len == 0 || !c->streams->has_followers(c->session)) return;
        nlohmann::json data = {{"chunk", std::string(chunk.ptr, chunk.len)}};
        if (stream != nullptr) data["stream"] = stream;
        c->streams->publish(c->session, "output", actionhost::common::dump_json(data));
    });
    if (!ok) {
        ctx->env->log(AH_LOG_PLUGIN_MISBEHAVING, ctx->plugin_name, "emit_partial on a call that is not running");
        return AH_ERR_STATE;
    }
    return AH_OK;
}

ah_status_t svc_emit_partial(const ah_host_t *h, ah_call_t *call, ah_bytes_t chunk) {
    return publish_partial(h, call, nullptr, chunk);
}

ah_status_t svc_emit_partial_stream(const ah_host_t *h, ah_call_t *call, int32_t stream, ah_bytes_t chunk) {
    if (stream == AH_OUTPUT_STDOUT) return publish_partial(h, call, "stdout", chunk);
    if (stream == AH_OUTPUT_STDERR) return publish_partial(h, call, "stderr", chunk);
    auto *ctx = PluginHostContext::from(h);
    ctx->env->log(AH_LOG_PLUGIN_MISBEHAVING, ctx->plugin_name,
                  "emit_partial_stream with an unknown stream " + std::to_string(stream));
    return AH_ERR_INVALID_ARGUMENT;
}

constexpr ah_ext_partial_streams_t kPartialStreams{sizeof(ah_ext_partial_streams_t), &svc_emit_partial_stream};

const char *svc_config_get(const ah_host_t *h, const char *key) {
    if (key == nullptr) return nullptr;
    return PluginHostContext::from(h)->env->config_get(key);
}

const void *svc_get_extension(const ah_host_t *, const char *id) {
    if (id == nullptr) return nullptr;
    const std::string_view wanted(id);
    if (wanted == AH_EXT_PARTIAL_STREAMS) return &kPartialStreams;
    if (wanted == AH_EXT_JSON) return &json_extension();
    return nullptr;
}

}  // namespace

std::string PluginHostContext::take_error() {
    std::lock_guard lock(mu);
    auto it = last_error.find(std::this_thread::get_id());
    if (it == last_error.end()) return "";
    std::string e = std::move(it->second);
    last_error.erase(it);
    return e;
}

void init_host_services(PluginHostContext &ctx) {
    ctx.c.struct_size = sizeof(ah_host_t);
    ctx.c.abi_version = AH_ABI_VERSION_INIT;
    ctx.c.host_data = &ctx;
    ctx.c.info = ctx.env->info();
    ctx.c.log = &svc_log;
    ctx.c.set_error = &svc_set_error;
    ctx.c.set_observation = &svc_set_observation;
    ctx.c.emit_partial = &svc_emit_partial;
    ctx.c.config_get = &svc_config_get;
    ctx.c.get_extension = &svc_get_extension;
}

common::Result<std::unique_ptr<PluginModule>> PluginModule::load(const modules::Manifest &manifest, HostEnvironment &env) {
    // Manifest, negotiation and the entry: the loader the client's runtime modules go through too.
    std::unique_ptr<PluginModule> m(new PluginModule());
    m->manifest_ = manifest;
    auto opened = modules::ModuleLibrary::open(manifest);
    if (!opened) return opened.as_failure();
    m->lib_ = std::move(opened).value();
    const ah_plugin_entry_t *entry = m->lib_->plugin_entry();
    const modules::ModuleLibrary *lib = m->lib_.get();  // names the library in a refusal, as the loader's do
    return start(std::move(m), env, [entry](const ah_host_t *h) { return entry->create(h); },
                 [lib](const std::string &why) { return lib->refusal(why); });
}

common::Result<std::unique_ptr<PluginModule>> PluginModule::load_isolated(const modules::Manifest &manifest, HostEnvironment &env,
                                                                          IsolationSettings settings) {
    // No library here: the proxy (isolated_plugin.hpp) is the plugin, and the worker loads the real one
    // with the loader above.
    std::unique_ptr<PluginModule> m(new PluginModule());
    m->manifest_ = manifest;
    const std::string who = "refusing plugin " + manifest.name + " (isolated in a process of its own): ";
    return start(std::move(m), env,
                 [&settings](const ah_host_t *h) { return create_isolated_plugin(h, std::move(settings)); },
                 [who](const std::string &why) { return who + why; });
}

common::Result<std::unique_ptr<PluginModule>> PluginModule::start(std::unique_ptr<PluginModule> m, HostEnvironment &env,
                                                                  const std::function<ah_plugin_t *(const ah_host_t *)> &create,
                                                                  const std::function<std::string(const std::string &)> &refusal) {
    const modules::Manifest &manifest = m->manifest_;
    auto refuse = [&](const std::string &why) { return common::fail(refusal(why)); };
    m->ctx_ = std::make_unique<PluginHostContext>();
    m->ctx_->env = &env;
    m->ctx_->plugin_name = manifest.name;
    init_host_services(*m->ctx_);
    m->plugin_ = create(&m->ctx_->c);
    if (m->plugin_ == nullptr) {
        std::string why = m->ctx_->take_error();
        return refuse("create failed" + (why.empty() ? std::string() : ": " + why));
    }
    // The dispatch table: a plugin with a NULL slot is refused before any call through it.
    if (const auto check = modules::check_dispatch(*m->plugin_); !check.ok()) {
        if (check.can_destroy) m->plugin_->destroy(m->plugin_);  // else a truncated struct: leaked
        m->plugin_ = nullptr;
        return refuse(check.why);
    }
    const ah_status_t st = m->plugin_->init(m->plugin_);
    if (st != AH_OK) {
        std::string why = m->ctx_->take_error();
        m->plugin_->shutdown(m->plugin_);
        m->plugin_->destroy(m->plugin_);
        m->plugin_ = nullptr;
        return refuse("init failed with status " + std::to_string(st) + (why.empty() ? std::string() : ": " + why));
    }
    const void *stream_ext = m->plugin_->get_extension(m->plugin_, AH_EXT_HTTP_STREAM_ROUTES);
    if (stream_ext != nullptr) {
        const auto *routes = static_cast<const ah_ext_http_stream_routes_t *>(stream_ext);
        if (routes->struct_size >= offsetof(ah_ext_http_stream_routes_t, handle) + sizeof(routes->handle) &&
            routes->paths != nullptr && routes->handle != nullptr)
            m->stream_routes_ = routes;
        else
            env.log(AH_LOG_PLUGIN_MISBEHAVING, manifest.name, "ignoring a malformed http_stream_routes extension");
    }
    const void *ext = m->stream_routes_ ? nullptr : m->plugin_->get_extension(m->plugin_, AH_EXT_HTTP_ROUTES);
    if (ext != nullptr) {
        const auto *routes = static_cast<const ah_ext_http_routes_t *>(ext);
        if (routes->struct_size >= offsetof(ah_ext_http_routes_t, handle) + sizeof(routes->handle) &&
            routes->paths != nullptr && routes->handle != nullptr)
            m->routes_ = routes;
        else
            env.log(AH_LOG_PLUGIN_MISBEHAVING, manifest.name, "ignoring a malformed http_routes extension");
    }
    // A manifest that promises routes is a contract: a module without a way to answer them is refused,
    // so a route-only plugin never loads as a module that does nothing.
    if (!manifest.http_routes.empty() && m->routes_ == nullptr && m->stream_routes_ == nullptr) {
        m->plugin_->shutdown(m->plugin_);
        m->plugin_->destroy(m->plugin_);
        m->plugin_ = nullptr;
        return refuse("its manifest lists http_routes but the module offers no http routes extension");
    }
    // A policy module is refused without its extension, as a route plugin without routes: it would
    // otherwise load as one that judges nothing.
    if (manifest.policy) {
        const auto *policy = static_cast<const ah_ext_policy_t *>(m->plugin_->get_extension(m->plugin_, AH_EXT_POLICY));
        if (policy == nullptr || policy->struct_size < offsetof(ah_ext_policy_t, check) + sizeof(policy->check) ||
            policy->check == nullptr) {
            m->plugin_->shutdown(m->plugin_);
            m->plugin_->destroy(m->plugin_);
            m->plugin_ = nullptr;
            return refuse("its manifest says provides.policy but the module offers no " AH_EXT_POLICY " extension");
        }
        m->policy_ = policy;
    }
    for (const auto &route : manifest.http_routes)
        if (!m->answers(route))
            env.log(AH_LOG_WARNING, manifest.name, "its manifest lists the route " + route + ", which the module does not answer");
    if (manifest.never_unload && m->lib_) {
        m->lib_->keep_loaded();
    }
    return m;
}

ah_status_t PluginModule::execute(const ah_action_call_t &call) { return plugin_->execute(plugin_, &call); }

ah_status_t PluginModule::check_policy(const ah_policy_query_t &query, ah_policy_verdict_t &verdict) {
    if (policy_ == nullptr) return AH_ERR_UNSUPPORTED;
    return policy_->check(plugin_, &query, &verdict);
}

bool PluginModule::answers(const std::string &path) const {
    const char *const *paths = stream_routes_ ? stream_routes_->paths : routes_ ? routes_->paths : nullptr;
    for (const char *const *p = paths; p != nullptr && *p != nullptr; ++p)
        if (path == *p) return true;
    return false;
}

void PluginModule::shutdown() {
    std::call_once(shutdown_once_, [&] {
        if (plugin_) plugin_->shutdown(plugin_);
    });
}

PluginModule::~PluginModule() {
    if (plugin_ != nullptr) {
        shutdown();
        plugin_->destroy(plugin_);
    }
}

}  // namespace actionhost::host
