// A C++ base for in-tree runtime backends: subclass Backend, implement connect/endpoint/close (and
// pause/resume when the provider can), and export it with ACTIONHOST_RUNTIME_MODULE. The C ABI of
// sdk/include/actionhost/runtime.h is implemented here once, with a catch-all barrier on every entry
// point: an exception becomes host->set_error + a status code, never a crash across the ABI.
#pragma once

#include <actionhost/runtime.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

struct Endpoint {
    std::string url;
    std::string session_api_key;
    std::string runtime_id;
};

// Thrown by a backend for an operation its provider cannot do (→ AH_ERR_UNSUPPORTED).
class Unsupported : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};
// Thrown when a wait ran out (→ AH_ERR_TIMEOUT).
class Timeout : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Backend {
  public:
    explicit Backend(const ah_runtime_host_t *host) : host_(host) {}
    virtual ~Backend() = default;
    Backend(const Backend &) = delete;
    Backend &operator=(const Backend &) = delete;

    virtual void connect() = 0;
    virtual Endpoint endpoint() = 0;
    virtual void pause() { throw Unsupported("pause is not supported by this runtime"); }
    virtual void resume() { throw Unsupported("resume is not supported by this runtime"); }
    virtual void close() = 0;
    // What an HTTP error of the sandbox URL means (sdk ext/runtime_recovery.h). Backends that answer
    // anything but AH_RECOVERY_REPORT return true from handles_sandbox_errors(); a throw counts as
    // AH_RECOVERY_DISCONNECTED with its message.
    virtual bool handles_sandbox_errors() const { return false; }
    virtual int on_sandbox_error(int /*http_status*/) { return 0; }
    // Sandboxes kept on this machine, answered for without connecting (sdk ext/runtime_reclaim.h).
    // Backends that have such state return true from reclaims_sandboxes() and implement the three; a
    // throw from discard or reclaim becomes an error status with its message.
    virtual bool reclaims_sandboxes() const { return false; }
    virtual bool sandbox_exists() { return false; }
    virtual void discard() {}
    virtual void reclaim(bool thorough, const std::function<void(const std::string &session_id)> &ended) {
        (void)thorough;
        (void)ended;
    }
    // Snapshots (sdk ext/runtime_snapshot.h): a backend whose sandbox has a writable layer of its own
    // says so, freezes the sandbox and answers the layer's description as JSON, and thaws it.
    virtual bool takes_snapshots() const { return false; }
    virtual std::string freeze_layer() { throw Unsupported("this runtime cannot take snapshots"); }
    virtual void thaw_layer() {}
    // Published ports (sdk ext/runtime_ports.h): a backend that can carry connections from the machine
    // to a port of its sandbox says so. publish_port returns "127.0.0.1:41234"; published_ports a JSON
    // array [{"port", "address"}].
    virtual bool publishes_ports() const { return false; }
    virtual std::string publish_port(int port, int machine_port, const std::string &address) {
        (void)port, (void)machine_port, (void)address;
        throw Unsupported("this runtime cannot publish ports");
    }
    virtual void unpublish_port(int port) {
        (void)port;
        throw Unsupported("this runtime cannot publish ports");
    }
    virtual std::string published_ports() { throw Unsupported("this runtime cannot publish ports"); }
    // The egress policy of a running sandbox (sdk ext/runtime_network.h): JSON text both ways; a bad
    // change throws std::invalid_argument.
    virtual bool has_network_policy() const { return false; }
    virtual std::string network_policy() { throw Unsupported("this runtime has no egress policy"); }
    virtual std::string change_network_policy(const std::string &change_json) {
        (void)change_json;
        throw Unsupported("this runtime has no egress policy");
    }
    // Lifetimes (sdk ext/runtime_lifetime.h): a backend that keeps a sandbox's lifetime and idle timeout
    // where no client is needed says so; both answer the JSON state of the extension's header. They may
    // be called on a runtime that is not connected (a kept-alive session: `ahctl extend`, `ahctl ps`).
    // A bad extension throws std::invalid_argument.
    virtual bool keeps_lifetime() const { return false; }
    virtual std::string lifetime_state() { throw Unsupported("this runtime keeps no lifetime"); }
    virtual std::string extend_lifetime(long long seconds) {
        (void)seconds;
        throw Unsupported("this runtime keeps no lifetime");
    }
    // Other optional capabilities by id (ah_runtime_t.get_extension); the table must outlive the runtime.
    virtual const void *extension(const std::string &id) const {
        (void)id;
        return nullptr;
    }

  protected:
    const ah_runtime_host_t *host() const { return host_; }
    const ah_runtime_info_t &info() const { return *host_->info; }
    void status(const char *runtime_status, const std::string &detail = "") const {
        host_->set_status(host_, runtime_status, detail.c_str());
    }
    void log(ah_log_level_t level, const std::string &msg) const { host_->log(host_, level, msg.c_str()); }
    std::optional<std::string> config(const std::string &key) const;
    std::string config_string(const std::string &key, const std::string &fallback) const;
    bool config_bool(const std::string &key, bool fallback) const;
    double config_number(const std::string &key, double fallback) const;
    // info->host_command_json and info->env_json, parsed.
    std::vector<std::string> host_args() const;
    // The host's --plugin-dir values: directories of the client's machine (absolute) that a backend
    // whose manifest says "plugin_dirs": true shows its host at the same path, read-only.
    std::vector<std::string> plugin_dirs() const;
    std::map<std::string, std::string> host_env() const;
    // Waits for GET <url>/alive = 200 through the client library. Throws Timeout.
    void wait_alive(const std::string &url, const std::string &key, double timeout_s) const;

  private:
    const ah_runtime_host_t *host_;
};

using BackendFactory = std::unique_ptr<Backend> (*)(const ah_runtime_host_t *host, const std::string &runtime_name);

// Wraps a Backend in the C ABI's ah_runtime_t. Returns NULL after host->set_error on failure.
ah_runtime_t *make_runtime(const ah_runtime_host_t *host, const char *runtime_name, BackendFactory factory);

// Host argument list helpers: removes every `--flag VALUE` pair of `flag`, or sets it (replacing).
void remove_flag(std::vector<std::string> &args, const std::string &flag);
void set_flag(std::vector<std::string> &args, const std::string &flag, const std::string &value);
std::optional<std::string> flag_value(const std::vector<std::string> &args, const std::string &flag);

}  // namespace actionhost::runtime_support

// Exports `actionhost_runtime_entry` for a module named NAME (must equal manifest.json's "name").
#define ACTIONHOST_RUNTIME_MODULE(NAME, VERSION, FACTORY)                                              \
    static ah_runtime_t *ah_module_create(const ah_runtime_host_t *host, const char *runtime_name) {   \
        return ::actionhost::runtime_support::make_runtime(host, runtime_name, FACTORY);               \
    }                                                                                                  \
    AH_EXPORT const ah_runtime_entry_t *actionhost_runtime_entry(void) {                               \
        static const ah_runtime_entry_t entry = {AH_ABI_VERSION_INIT, sizeof(ah_runtime_entry_t), NAME, \
                                                 VERSION, ah_module_create};                           \
        return &entry;                                                                                 \
    }
