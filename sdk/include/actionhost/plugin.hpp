/*
 * actionhost SDK — optional header-only C++ helper for plugin authors.
 *
 * Compiled into the plugin; nothing of it crosses the ABI. Subclass actionhost::sdk::Plugin, then
 * ACTIONHOST_PLUGIN(MyPlugin, "name", "version") defines the one exported entry symbol. Every entry
 * point runs behind a catch-all barrier: an exception becomes AH_ERR_INTERNAL with its what() text
 * reported through host->set_error, never unwinding into the host.
 *
 * Extensions (a C table of function pointers, e.g. ext/http_routes.h): return the table from
 * Plugin::extension(id); its static functions receive the ah_plugin_t and reach the C++ plugin with
 * sdk::with_plugin<MyPlugin>(plugin, [&](MyPlugin &self) { ... }), which runs behind the same barrier.
 *
 * Threads (tags: abi.h): each virtual runs on the thread of the C entry point it wraps — the constructor
 * and init() [load-thread], execute() [call-thread], shutdown() and the destructor [main-thread |
 * load-thread], extension() [any-thread]; Host's and Call's members are the services of host.h, with
 * their tags (Call only while its execute runs).
 */
#ifndef ACTIONHOST_PLUGIN_HPP
#define ACTIONHOST_PLUGIN_HPP

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ext/partial_streams.h"
#include "plugin.h"

namespace actionhost::sdk {

/* Runs `f` and turns any exception into a status reported through set_error. */
template <class F>
ah_status_t barrier(const ah_host_t *host, ah_call_t *call, F &&f) noexcept {
    try {
        return f();
    } catch (const std::exception &e) {
        host->set_error(host, call, e.what());
    } catch (...) {
        host->set_error(host, call, "unknown C++ exception");
    }
    return AH_ERR_INTERNAL;
}

/* The host's services, borrowed for the plugin's life. */
class Host {
  public:
    explicit Host(const ah_host_t *host) : host_(host) {}
    const ah_host_t *raw() const { return host_; }
    const ah_host_info_t &info() const { return *host_->info; }
    void log(ah_log_level_t level, const std::string &msg) const { host_->log(host_, level, msg.c_str()); }
    std::optional<std::string> config(const char *key) const {
        const char *v = host_->config_get(host_, key);
        if (v == nullptr) return std::nullopt;
        return std::string(v);
    }
    const void *extension(const char *id) const { return host_->get_extension(host_, id); }

  private:
    const ah_host_t *host_;
};

/* One action being executed; valid during Plugin::execute only. */
class Call {
  public:
    Call(const ah_host_t *host, const ah_action_call_t *call) : host_(host), call_(call) {}
    std::string_view action_json() const { return {call_->action_json.ptr, call_->action_json.len}; }
    std::string_view action() const { return call_->action; }
    std::string_view session() const { return call_->session; }
    std::string_view cwd() const { return call_->cwd; }
    std::string_view request_id() const { return call_->request_id; }
    /* Sets the observation (a JSON object text). */
    void reply(std::string_view observation_json) const {
        host_->set_observation(host_, call_->call, ah_bytes_t{observation_json.data(), observation_json.size()});
    }
    /* Streams a chunk of partial output to live followers. */
    void emit_partial(std::string_view chunk) const {
        host_->emit_partial(host_, call_->call, ah_bytes_t{chunk.data(), chunk.size()});
    }
    /* Streams a chunk marked as the command's stdout or stderr (ext/partial_streams.h); a host without
     * that service gets it unmarked, so nothing is lost. */
    void emit_partial(std::string_view chunk, ah_output_stream_t stream) const {
        const auto *ext = static_cast<const ah_ext_partial_streams_t *>(host_->get_extension(host_, AH_EXT_PARTIAL_STREAMS));
        if (ext == nullptr || ext->struct_size < sizeof(ah_ext_partial_streams_t)) return emit_partial(chunk);
        ext->emit_partial_stream(host_, call_->call, stream, ah_bytes_t{chunk.data(), chunk.size()});
    }
    ah_call_t *handle() const { return call_->call; }

  private:
    const ah_host_t *host_;
    const ah_action_call_t *call_;
};

class Plugin {
  public:
    explicit Plugin(Host host) : host_(host) {}
    virtual ~Plugin() = default;
    Plugin(const Plugin &) = delete;
    Plugin &operator=(const Plugin &) = delete;

    virtual ah_status_t init() { return AH_OK; }
    /* Must call call.reply(...) and return AH_OK, or throw / return an error status. */
    virtual ah_status_t execute(Call &call) = 0;
    virtual void shutdown() {}
    virtual const void *extension(const char * /*id*/) const { return nullptr; }

    const Host &host() const { return host_; }

  private:
    Host host_;
};

namespace detail {

template <class T>
struct Adapter {
    ah_plugin_t c;
    const ah_host_t *host;
    std::unique_ptr<T> impl;

    static Adapter *self(const ah_plugin_t *p) { return static_cast<Adapter *>(p->plugin_data); }

    static ah_status_t init(ah_plugin_t *p) {
        Adapter *a = self(p);
        return barrier(a->host, nullptr, [&] { return a->impl->init(); });
    }
    static ah_status_t execute(ah_plugin_t *p, const ah_action_call_t *call) {
        Adapter *a = self(p);
        return barrier(a->host, call->call, [&] {
            Call c(a->host, call);
            return a->impl->execute(c);
        });
    }
    static void shutdown(ah_plugin_t *p) {
        Adapter *a = self(p);
        barrier(a->host, nullptr, [&] {
            a->impl->shutdown();
            return AH_OK;
        });
    }
    static void destroy(ah_plugin_t *p) {
        Adapter *a = self(p);
        barrier(a->host, nullptr, [&] {
            delete a;
            return AH_OK;
        });
    }
    static const void *get_extension(const ah_plugin_t *p, const char *id) {
        Adapter *a = self(p);
        const void *out = nullptr;
        barrier(a->host, nullptr, [&] {
            out = a->impl->extension(id);
            return AH_OK;
        });
        return out;
    }
    static ah_plugin_t *create(const ah_host_t *host) {
        ah_plugin_t *out = nullptr;
        barrier(host, nullptr, [&] {
            auto a = std::make_unique<Adapter>();
            a->host = host;
            a->impl = std::make_unique<T>(Host(host));
            a->c = ah_plugin_t{sizeof(ah_plugin_t), a.get(), &init, &execute, &shutdown, &destroy, &get_extension};
            out = &a.release()->c;
            return AH_OK;
        });
        return out;
    }
};

}  // namespace detail

/* For the static functions of an extension table: runs `f(self)` on the C++ plugin behind `plugin`
 * (an instance made by ACTIONHOST_PLUGIN(T, ...)) behind the barrier, so an exception becomes
 * AH_ERR_INTERNAL with its text in host->set_error(host, NULL, ...). Thread and lifetime: those of the
 * extension function calling it. */
template <class T, class F>
ah_status_t with_plugin(const ah_plugin_t *plugin, F &&f) noexcept {
    auto *a = detail::Adapter<T>::self(plugin);
    return barrier(a->host, nullptr, [&] { return f(*a->impl); });
}

}  // namespace actionhost::sdk

/* Defines the module's one exported symbol for plugin class `CLASS` (constructible from sdk::Host). */
#define ACTIONHOST_PLUGIN(CLASS, NAME, VERSION)                                                          \
    AH_EXPORT const ah_plugin_entry_t *actionhost_plugin_entry(void) {                                   \
        static const ah_plugin_entry_t entry = {AH_ABI_VERSION_INIT, sizeof(ah_plugin_entry_t), NAME,    \
                                                VERSION, &::actionhost::sdk::detail::Adapter<CLASS>::create}; \
        return &entry;                                                                                   \
    }

#endif /* ACTIONHOST_PLUGIN_HPP */
