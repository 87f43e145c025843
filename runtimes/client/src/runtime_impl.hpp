// Runtime's private state, shared by the files that implement it by job:
//   runtime.cpp                 lifecycle: create, connect, pause/resume, close
//   runtime_kept_alive.cpp      sandboxes that outlive the client: stop, exists, reclaim
//   runtime_actions.cpp         what runs in a connected sandbox: actions, env vars, repos
//   runtime_host_services.cpp   the C view (ah_runtime_host_t) a backend calls back into
//   runtime_images.cpp          the images service (actionhost.images/1) over the image store
//   runtime_ports.cpp           published ports (actionhost.runtime_ports/1), the web view's address
//   runtime_network.cpp         the egress policy of a sandbox on the internet (actionhost.runtime_network/1)
//   runtime_host_command.cpp    the host's command line and environment a backend starts
//   runtime_module_loader.cpp   loading and checking a backend module
//   runtime_sandbox_setup.cpp   first-connect set-up: variables, git user, the selected repo
//   runtime_plugins.cpp         plugins over OCI registries: push, install (into a directory or an image), ls, rm, search (plugins/)
#pragma once

#include <actionhost/ext/runtime_reclaim.h>
#include <actionhost/runtime.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <actionhost/common/log.hpp>
#include <actionhost/modules/module_library.hpp>
#include "actionhost/client/git_workspace.hpp"

#include "actionhost/client/errors.hpp"
#include "actionhost/client/registry.hpp"
#include "actionhost/client/runtime.hpp"

namespace actionhost::client {

namespace images {
struct RegistrySettings;
struct StoreSettings;
}
// The registry settings of `config` (mirrors, insecure registries, credentials), as image pulls use
// them; runtime_images.cpp. The plugin commands reach registries with the same.
images::RegistrySettings registry_settings(const Config &config);
// The settings of the client's image store (at image_store_root(config)); runtime_images.cpp.
images::StoreSettings image_store_settings(const Config &config);

struct Runtime::Impl {
    ah_runtime_host_t host{};  // the C view handed to the backend; host_data leads back here
    ah_runtime_info_t info{};
    RuntimeOptions options;
    Environment env;
    std::string runtime_name, module_name, session_id, install_dir, host_command_json, env_json, api_key;
    std::string url, endpoint_key, runtime_id, last_status, state_dir, workspace;
    // What set_error recorded, per thread (runtime.h promises it per thread and safe concurrently: a
    // backend's helper thread failing must not overwrite, or race with, the error of the client's call).
    std::mutex error_mutex;
    std::unordered_map<std::thread::id, std::string> last_errors;
    std::string images_root;  // the image store's directory (images/image_store.hpp)
    std::vector<std::string> plugins;  // the host's plugins (from the record when reattaching)
    std::vector<std::string> plugin_dirs;  // absolute; the host's --plugin-dir, made visible by the backend
    std::string in_process_url;        // attached while connected to an in-process runtime
    std::deque<std::string> config_strings;  // stable storage for config_get answers
    std::mutex config_mutex;
    std::unique_ptr<modules::ModuleLibrary> module;  // the backend's library; unloaded after ~Runtime destroyed `runtime`
    ah_runtime_t *runtime = nullptr;
    std::unique_ptr<WireClient> wire;
    bool connected = false, closed = false;
    // The git provider tokens stay outside the sandbox: its backend keeps secrets in an egress proxy
    // (its manifest's network_keys name "secrets", and sandbox.network = "internet"), given them as sandbox.secrets; then they are neither
    // exported into it nor uploaded for a clone (the proxy adds them on the way out).
    bool git_tokens_outside = false;
    // The tokens a clone may use inside: the client's, unless they stay outside.
    std::vector<GitToken> clone_tokens() const;  // runtime_sandbox_setup.cpp

    static Impl *of(const ah_runtime_host_t *h) { return static_cast<Impl *>(h->host_data); }

    void status(const std::string &s, const std::string &detail) {
        last_status = s;
        if (options.on_status) options.on_status(s, detail);
    }
    void log(common::LogLevel level, const std::string &msg) {
        if (options.on_log) options.on_log(common::to_abi(level), msg);
    }
    void set_error(std::string msg) {
        std::lock_guard lock(error_mutex);
        last_errors[std::this_thread::get_id()] = std::move(msg);
    }
    // This thread's recorded error (cleared), or `fallback` when it recorded none.
    std::string take_error(const std::string &fallback) {
        std::lock_guard lock(error_mutex);
        const auto it = last_errors.find(std::this_thread::get_id());
        if (it == last_errors.end()) return fallback;
        std::string e = it->second.empty() ? fallback : std::move(it->second);
        last_errors.erase(it);
        return e;
    }
    void check(ah_status_t st, const char *what) {
        if (st == AH_OK) return;
        std::string msg = take_error("status " + std::to_string(st));
        status(AH_STATUS_ERROR, msg);
        throw RuntimeError("Runtime " + runtime_name + " failed to " + what + ": " + msg);
    }

    // A string a backend's extension handed out (NULL: ""), copied and freed with its free_string.
    template <class Extension>
    std::string take_string(const Extension &ext, char *text) {
        std::string out = text != nullptr ? text : "";
        if (text != nullptr) ext.free_string(runtime, text);
        return out;
    }

    // --- published ports (runtime_ports.cpp) ----------------------------------------------------
    // The backend's actionhost.runtime_ports/1, or RuntimeError naming `what` (not connected, none).
    const struct ah_ext_runtime_ports &ports_extension(const char *what);
    // As check(), but a refused request (AH_ERR_INVALID_ARGUMENT) throws std::invalid_argument.
    void check_request(ah_status_t st, const char *what);
    // The backend's listing: {"ports": [{"port", "address"}], "host_port"?: N}.
    nlohmann::json port_listing();

    // --- the egress policy (runtime_network.cpp) ------------------------------------------------
    // The backend's actionhost.runtime_network/1, or RuntimeError (not connected, none).
    const struct ah_ext_runtime_network &network_extension();
    // The backend's JSON answer, or RuntimeError when it is not a JSON object.
    nlohmann::json network_answer(const std::string &text);

    // --- host services (runtime_host_services.cpp) ---------------------------------------------
    struct HttpResultData;
    static void svc_log(const ah_runtime_host_t *h, ah_log_level_t level, const char *msg);
    static void svc_set_error(const ah_runtime_host_t *h, const char *msg);
    static void svc_set_status(const ah_runtime_host_t *h, const char *s, const char *detail);
    static const char *svc_config_get(const ah_runtime_host_t *h, const char *key);
    static ah_status_t svc_http_request(const ah_runtime_host_t *, const ah_http_call_t *call, ah_http_result_t *result);
    static void svc_http_result_free(const ah_runtime_host_t *, ah_http_result_t *result);
    static ah_status_t svc_wait_alive(const ah_runtime_host_t *h, const char *url, const char *key, double timeout_s);
    static const char *const *svc_http_response_headers(const ah_runtime_host_t *, const ah_http_result_t *result);
    static const void *svc_get_extension(const ah_runtime_host_t *, const char *id);
    static ah_status_t svc_images_prepare(const ah_runtime_host_t *h, const char *owners_json, char **out_json);
    static void svc_images_free(const ah_runtime_host_t *, char *text);
    void build_host_view();

    // --- the host's command line and environment (runtime_host_command.cpp) ---------------------
    void build_host_command();
    Environment initial_env() const;

    bool jupyter() const { return std::find(plugins.begin(), plugins.end(), "jupyter") != plugins.end(); }

    const ah_ext_runtime_reclaim_t *reclaimer() const {
        auto *ext = static_cast<const ah_ext_runtime_reclaim_t *>(runtime->get_extension(runtime, AH_EXT_RUNTIME_RECLAIM));
        return ext && ext->struct_size >= sizeof(ah_ext_runtime_reclaim_t) ? ext : nullptr;
    }

    // --- set-up (runtime_sandbox_setup.cpp) and module loading (runtime_module_loader.cpp) -------
    // OpenHands' setup_initial_env plus its clone_or_init_repo, once the host is alive.
    void setup_sandbox();
    const std::string &workspace_dir();
    void load_module(const RuntimeModule &mod);
    // The backend's create, and its dispatch table checked before any call through it.
    void create_runtime(const std::string &wanted);
};

}  // namespace actionhost::client
