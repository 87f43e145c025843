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
 *
 * JSON: JsonWriter builds an observation and JsonDoc reads the action's arguments, through the host's
 * service "actionhost.json/1" (ext/json.h) — no escaping by hand, no JSON library to link. Each object
 * is used from one thread at a time; a refusal throws std::runtime_error with the service's text, which
 * the barrier turns into the call's error.
 */
#ifndef ACTIONHOST_PLUGIN_HPP
#define ACTIONHOST_PLUGIN_HPP

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ext/json.h"
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

/* The host's JSON service, or an exception saying the host is too old to have it. */
inline const ah_ext_json_t &json_service(const Host &host) {
    const auto *ext = static_cast<const ah_ext_json_t *>(host.extension(AH_EXT_JSON));
    if (ext == nullptr || ext->struct_size < sizeof(ah_ext_json_t))
        throw std::runtime_error("this host offers no JSON service (" AH_EXT_JSON ")");
    return *ext;
}

/* One JSON value written through the host (ext/json.h, "Writing"): each call returns *this, so
 *     JsonWriter w(host()); w.begin_object().string("observation", "hello").end(); call.reply(w.finish());
 * A `key` is nullptr inside an array and for the top-level value. */
class JsonWriter {
  public:
    explicit JsonWriter(const Host &host) : json_(json_service(host)), w_(json_.writer_new()) {
        if (w_ == nullptr) throw std::bad_alloc();
    }
    ~JsonWriter() { json_.writer_free(w_); }
    JsonWriter(const JsonWriter &) = delete;
    JsonWriter &operator=(const JsonWriter &) = delete;

    JsonWriter &begin_object(const char *key = nullptr) { return check(json_.begin_object(w_, key)); }
    JsonWriter &begin_array(const char *key = nullptr) { return check(json_.begin_array(w_, key)); }
    JsonWriter &end() { return check(json_.end(w_)); }
    JsonWriter &string(const char *key, std::string_view value) {
        return check(json_.put_string_n(w_, key, ah_bytes_t{value.data(), value.size()}));
    }
    JsonWriter &integer(const char *key, int64_t value) { return check(json_.put_int(w_, key, value)); }
    JsonWriter &number(const char *key, double value) { return check(json_.put_double(w_, key, value)); }
    JsonWriter &boolean(const char *key, bool value) { return check(json_.put_bool(w_, key, value ? 1 : 0)); }
    JsonWriter &null(const char *key) { return check(json_.put_null(w_, key)); }
    /* The text, on one line; a view valid until the writer is used again or destroyed. */
    std::string_view finish() {
        ah_bytes_t out{};
        check(json_.finish(w_, &out));
        return {out.ptr, out.len};
    }

  private:
    JsonWriter &check(ah_status_t status) {
        if (status != AH_OK) {
            const char *why = json_.writer_error(w_);
            throw std::runtime_error(std::string("JSON writer: ") + (why != nullptr ? why : "refused"));
        }
        return *this;
    }
    const ah_ext_json_t &json_;
    ah_json_writer_t *w_;
};

/* One JSON text parsed by the host (ext/json.h, "Reading"), read through JSON pointers ("/args/name").
 * A getter gives nullopt when there is no value of its type there; views live as long as the JsonDoc. */
class JsonDoc {
  public:
    JsonDoc(const Host &host, std::string_view text)
        : json_(json_service(host)), d_(json_.parse(ah_bytes_t{text.data(), text.size()})) {
        if (d_ == nullptr) throw std::bad_alloc();
    }
    ~JsonDoc() { json_.doc_free(d_); }
    JsonDoc(const JsonDoc &) = delete;
    JsonDoc &operator=(const JsonDoc &) = delete;

    /* Why the text did not parse; nullptr when it did. */
    const char *error() const { return json_.doc_error(d_); }
    ah_json_type_t type(const char *pointer) const { return json_.type_at(d_, pointer); }
    std::optional<std::string_view> string(const char *pointer) const {
        ah_bytes_t out{};
        if (json_.get_string(d_, pointer, &out) != AH_OK) return std::nullopt;
        return std::string_view(out.ptr, out.len);
    }
    std::optional<int64_t> integer(const char *pointer) const {
        int64_t out = 0;
        if (json_.get_int(d_, pointer, &out) != AH_OK) return std::nullopt;
        return out;
    }
    std::optional<double> number(const char *pointer) const {
        double out = 0;
        if (json_.get_double(d_, pointer, &out) != AH_OK) return std::nullopt;
        return out;
    }
    std::optional<bool> boolean(const char *pointer) const {
        int32_t out = 0;
        if (json_.get_bool(d_, pointer, &out) != AH_OK) return std::nullopt;
        return out != 0;
    }
    const ah_json_doc_t *raw() const { return d_; }

  private:
    const ah_ext_json_t &json_;
    ah_json_doc_t *d_;
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
