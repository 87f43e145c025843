// One loaded plugin module: its library, its host services, its instance, and the checks that refuse a
// module which does not honour the ABI.
#pragma once

#include <actionhost/ext/http_routes.h>
#include <actionhost/ext/http_stream_routes.h>
#include <actionhost/ext/policy.h>
#include <actionhost/plugin.h>

#include <atomic>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <thread>
#include <string>

#include "modules/host_environment.hpp"
#include "modules/isolated_plugin.hpp"
#include <actionhost/modules/manifest.hpp>
#include <actionhost/modules/module_library.hpp>

namespace actionhost::host {

// The ah_host_t a plugin receives, and what its services need; c.host_data points back here.
struct PluginHostContext {
    ah_host_t c;
    HostEnvironment *env = nullptr;
    std::string plugin_name;
    std::mutex mu;
    // set_error(host, NULL, ...): per thread, as each failing call (create, init, a route's handle) reads
    // its own after it returns, while others may run at once.
    std::map<std::thread::id, std::string> last_error;

    static PluginHostContext *from(const ah_host_t *h) { return static_cast<PluginHostContext *>(h->host_data); }
    std::string take_error();  // the calling thread's, cleared
};

class PluginModule {
  public:
    // Loads, checks, creates and initialises the module described by `manifest`. A refusal is one line
    // naming the file and the reason.
    static common::Result<std::unique_ptr<PluginModule>> load(const modules::Manifest &manifest, HostEnvironment &env);
    // The same module run in a worker process of its own, behind a proxy plugin (isolated_plugin.hpp):
    // the same checks, the same calls, the same refusals (naming the isolation).
    static common::Result<std::unique_ptr<PluginModule>> load_isolated(const modules::Manifest &manifest, HostEnvironment &env,
                                                                       IsolationSettings settings);
    ~PluginModule();  // shutdown (if not yet), destroy, unload (unless never_unload)
    PluginModule(const PluginModule &) = delete;
    PluginModule &operator=(const PluginModule &) = delete;

    const modules::Manifest &manifest() const { return manifest_; }
    // Runs the plugin's execute behind the host's own barrier. `call.call` must be a live ah_call.
    ah_status_t execute(const ah_action_call_t &call);
    const ah_ext_http_routes_t *http_routes() const { return routes_; }
    const ah_ext_http_stream_routes_t *http_stream_routes() const { return stream_routes_; }
    // Whether this module answers `path` (through either route extension).
    bool answers(const std::string &path) const;
    ah_status_t handle_http(const ah_http_request_t &request, ah_http_reply_t &reply) {
        return routes_->handle(plugin_, &request, &reply);
    }
    ah_status_t handle_http_stream(const ah_http_stream_request_t &request, ah_http_stream_reply_t &reply) {
        return stream_routes_->handle(plugin_, &request, &reply);
    }
    // The policy extension's check (a module whose manifest says provides.policy; AH_ERR_UNSUPPORTED
    // otherwise). Called only in the policy worker (policy/policy_worker.hpp).
    ah_status_t check_policy(const ah_policy_query_t &query, ah_policy_verdict_t &verdict);
    void shutdown();
    std::string take_error() { return ctx_->take_error(); }

    // Calls into the module that are running (execute, an HTTP route's handle): the host never destroys a
    // module while one runs. Busy counts one for its life.
    void enter() { ++calls_; }
    void leave() { --calls_; }
    int calls_running() const { return calls_.load(); }
    struct Busy {
        explicit Busy(PluginModule &m) : m_(m) { m_.enter(); }
        ~Busy() { m_.leave(); }
        Busy(const Busy &) = delete;
        Busy &operator=(const Busy &) = delete;
        PluginModule &m_;
    };

  private:
    PluginModule() = default;
    // create, the dispatch check, init and the extensions, whatever made the plugin.
    static common::Result<std::unique_ptr<PluginModule>> start(std::unique_ptr<PluginModule> m, HostEnvironment &env,
                                                               const std::function<ah_plugin_t *(const ah_host_t *)> &create,
                                                               const std::function<std::string(const std::string &)> &refusal);
    modules::Manifest manifest_;
    std::unique_ptr<modules::ModuleLibrary> lib_;  // null when isolated: the worker holds the library
    std::unique_ptr<PluginHostContext> ctx_;
    ah_plugin_t *plugin_ = nullptr;
    const ah_ext_http_routes_t *routes_ = nullptr;
    const ah_ext_http_stream_routes_t *stream_routes_ = nullptr;
    const ah_ext_policy_t *policy_ = nullptr;
    std::once_flag shutdown_once_;
    std::atomic<int> calls_{0};
};

// Fills `ctx->c` with the host services implementation.
void init_host_services(PluginHostContext &ctx);

}  // namespace actionhost::host
