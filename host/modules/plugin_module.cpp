#include "modules/plugin_module.hpp"

#include <unistd.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/ext/partial_streams.h>
#include <cstddef>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "http/stream_hub.hpp"
#include "modules/call_state.hpp"

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
        if (c->streams == nullptr || chunk.len == 0 || !c->streams->has_followers(c->session)) return;
        nlohmann::json data = {{"chunk", std::string(chunk.ptr, chunk.len)}};
        if (stream != nullptr) data["stream"] = stream;
        c->streams->publish(c->session, "output", data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
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
    if (id != nullptr && std::string_view(id) == AH_EXT_PARTIAL_STREAMS) return &kPartialStreams;
    return nullptr;
}

std::string version_text(const ah_version_t &v) { return to_string(v); }

bool on_path(const std::string &exe) {
    if (exe.find('/') != std::string::npos) return access(exe.c_str(), X_OK) == 0;
    const char *path = getenv("PATH");
    std::stringstream ss(path ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string dir;
    while (std::getline(ss, dir, ':'))
        if (!dir.empty() && access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
    return false;
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

std::unique_ptr<PluginModule> PluginModule::load(const Manifest &manifest, HostEnvironment &env, std::string &error) {
    const std::string file = manifest.library_path();
    auto refuse = [&](const std::string &why) -> std::unique_ptr<PluginModule> {
        error = "refusing plugin module " + file + ": " + why;
        return nullptr;
    };
    for (const auto &exe : manifest.requires_executables)
        if (!on_path(exe)) return refuse("it requires the executable '" + exe + "', which is not installed");
    const ah_version_t host_abi = AH_ABI_VERSION_INIT;
    if (manifest.abi_version.major != host_abi.major)
        return refuse("its manifest declares ABI " + version_text(manifest.abi_version) + ", this host implements " +
                      version_text(host_abi) + " (major differs)");

    std::unique_ptr<PluginModule> m(new PluginModule());
    m->manifest_ = manifest;
    try {
        m->lib_ = std::make_unique<boost::dll::shared_library>(
            file, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
    } catch (const std::exception &e) {
        return refuse(std::string("it cannot be loaded: ") + e.what());
    }
    if (!m->lib_->has(AH_PLUGIN_ENTRY_SYMBOL))
        return refuse(std::string("it lacks the entry symbol ") + AH_PLUGIN_ENTRY_SYMBOL);
    auto entry_fn = m->lib_->get<const ah_plugin_entry_t *()>(AH_PLUGIN_ENTRY_SYMBOL);
    const ah_plugin_entry_t *entry = entry_fn();
    if (entry == nullptr) return refuse("its entry function returned NULL");
    const ah_version_t abi = entry->abi_version;
    if (abi.major != host_abi.major)
        return refuse("it was built for ABI " + version_text(abi) + ", this host implements " + version_text(host_abi) +
                      " (major differs)");
    if (abi.minor > host_abi.minor)
        return refuse("it was built for ABI " + version_text(abi) + ", newer than this host's " +
                      version_text(host_abi) + " (minor is newer)");
    if (entry->struct_size < offsetof(ah_plugin_entry_t, create) + sizeof(entry->create))
        return refuse("its entry struct is too small (" + std::to_string(entry->struct_size) + " bytes)");
    if (entry->name == nullptr || entry->version == nullptr || entry->create == nullptr)
        return refuse("its entry struct has a NULL name, version or create");
    if (manifest.name != entry->name)
        return refuse("its manifest says name \"" + manifest.name + "\" but the module says \"" + entry->name + "\"");
    if (manifest.version != entry->version)
        return refuse("its manifest says version " + manifest.version + " but the module says " + entry->version);
    if (manifest.abi_version.major != abi.major || manifest.abi_version.minor != abi.minor ||
        manifest.abi_version.patch != abi.patch)
        return refuse("its manifest says ABI " + version_text(manifest.abi_version) + " but the module was built for " +
                      version_text(abi));

    m->ctx_ = std::make_unique<PluginHostContext>();
    m->ctx_->env = &env;
    m->ctx_->plugin_name = manifest.name;
    init_host_services(*m->ctx_);
    m->plugin_ = entry->create(&m->ctx_->c);
    if (m->plugin_ == nullptr) {
        std::string why = m->ctx_->take_error();
        return refuse("create failed" + (why.empty() ? std::string() : ": " + why));
    }
    const ah_plugin_t *p = m->plugin_;
    const char *null_slot = nullptr;
    if (p->struct_size < offsetof(ah_plugin_t, get_extension) + sizeof(p->get_extension)) {
        m->plugin_ = nullptr;  // cannot trust any slot of a truncated struct, not even destroy
        return refuse("its plugin struct is too small (" + std::to_string(p->struct_size) + " bytes)");
    }
    if (p->init == nullptr) null_slot = "init";
    else if (p->execute == nullptr) null_slot = "execute";
    else if (p->shutdown == nullptr) null_slot = "shutdown";
    else if (p->destroy == nullptr) null_slot = "destroy";
    else if (p->get_extension == nullptr) null_slot = "get_extension";
    if (null_slot != nullptr) {
        if (p->destroy != nullptr) p->destroy(m->plugin_);
        m->plugin_ = nullptr;
        return refuse(std::string("its plugin struct has a NULL '") + null_slot + "' function");
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
    for (const auto &route : manifest.http_routes)
        if (!m->answers(route))
            env.log(AH_LOG_WARNING, manifest.name, "its manifest lists the route " + route + ", which the module does not answer");
    if (manifest.never_unload) {
        // Keep the code mapped for the life of the process: leak the handle on purpose.
        (void)m->lib_.release();
    }
    return m;
}

ah_status_t PluginModule::execute(const ah_action_call_t &call) { return plugin_->execute(plugin_, &call); }

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
