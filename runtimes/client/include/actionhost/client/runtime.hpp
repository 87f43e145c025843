// A runtime: the configured backend module loaded through the C ABI (sdk/include/actionhost/runtime.h),
// driven through its lifecycle, and the wire client to the host it started.
//
//   auto rt = Runtime::create(options);   // resolves [core] runtime, loads the backend .so
//   rt->connect();                        // provisions the sandbox, waits for /alive, STATUS$READY
//   rt->execute({{"action","run"},{"args",{{"command","echo hi"}}}});
//   rt->close();                          // stops it (or keeps it, keep_runtime_alive)
#pragma once

#include <actionhost/abi.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actionhost/client/config.hpp"
#include "actionhost/client/live_output.hpp"
#include "actionhost/client/wire_client.hpp"

namespace actionhost::client {

// Progress of a runtime: an OpenHands RuntimeStatus string ("STATUS$READY", ...) and free text.
using StatusCallback = std::function<void(const std::string &status, const std::string &detail)>;
// Log lines of the library and the backend, with their level (AH_LOG_DEBUG ... AH_LOG_PLUGIN_MISBEHAVING).
using LogCallback = std::function<void(ah_log_level_t level, const std::string &message)>;

struct RuntimeOptions {
    Config config;
    std::string session_id;              // "" → a fresh random id
    std::string install_dir;             // "" → detect_install_dir()
    std::vector<std::string> plugins;    // host --plugins
    // Directories of plugin folders on this machine, for the host's --plugin-dir (made absolute). Only
    // for a runtime whose manifest says "plugin_dirs": true (local, cli, sandbox, docker: the backend
    // makes each visible to its host at the same path); create() throws RuntimeError for another, and
    // for a directory that does not exist.
    std::vector<std::string> plugin_dirs;
    std::map<std::string, std::string> env;  // extra environment for the host process only
    // Variables for the sandbox (OpenHands' Runtime(env_vars=...)): added to SANDBOX_ENV_* and set after
    // connect in bash, ~/.bashrc and the kernel, like every variable of add_env_vars.
    std::map<std::string, std::string> sandbox_env;
    StatusCallback on_status;
    LogCallback on_log;
    WirePolicy wire_policy;              // timeouts/retries; default_action_timeout_s = sandbox.timeout
};

// A change of a running sandbox's egress policy (Runtime::change_network_policy): CIDRs and domain names.
struct EgressChange {
    std::vector<std::string> allow, deny, remove;
};

// A TCP port of the sandbox reachable from this machine (Runtime::publish_port).
struct PublishedPort {
    int port = 0;         // the sandbox's
    std::string address;  // where this machine reaches it: "127.0.0.1:41234", "[::1]:8080"
};

class Runtime {
  public:
    // Resolves the runtime name (config core.runtime; when it was never set and no Docker engine
    // socket exists, "sandbox") through the manifests on the search path and loads the backend.
    // Throws RuntimeNotFound, RuntimeError.
    static std::unique_ptr<Runtime> create(RuntimeOptions options);
    ~Runtime();  // closes (as close()) when connected and not closed; never throws

    // Provisions the sandbox, waits until the host is alive, then (unless it reattached to a kept-alive
    // sandbox) sets it up as OpenHands' setup_initial_env does, the same for every backend: the initial
    // environment (SANDBOX_ENV_*, sandbox_env, ENABLE_AUTO_LINT), then runtime_startup_env_vars, then
    // `git config --global user.name/email` from [core] git_user_name/git_user_email (not for `cli`), then
    // [sandbox] selected_repo cloned into the workspace (or `git init` when [core]
    // init_git_in_empty_workspace). Throws RuntimeError.
    void connect();
    // The wire to the host. Valid after connect.
    WireClient &wire();
    nlohmann::json execute(const nlohmann::json &action, const std::string &session = "");
    // A wire of its own to the connected host, for another thread: a WireClient is one connection and
    // is used by one thread at a time, so each thread driving the same sandbox takes its own (the Python
    // SDK keeps a pool of them). Throws RuntimeError when not connected.
    std::unique_ptr<WireClient> open_wire();
    // execute() over `wire` (wire() or one of open_wire's), with the backend's recovery verdicts as
    // execute() applies them; with `on_event` the session's live output is followed while it runs
    // (live_output.hpp's execute_following: events on another thread, all delivered before it returns).
    // Safe from several threads at once, each with its own wire.
    nlohmann::json execute(WireClient &wire, const nlohmann::json &action, const std::string &session,
                           const LiveEventFn &on_event = nullptr);
    void pause();
    void resume();

    // Sets variables in the sandbox at any time (sandbox_env.hpp): the kernel when the jupyter plugin
    // is loaded, the default bash session, ~/.bashrc. Throws std::invalid_argument, RuntimeError.
    void add_env_vars(const Environment &vars);
    // Whether the host was started with the jupyter plugin (recorded for kept-alive sessions).
    bool jupyter_loaded() const;
    // The workspace as the sandbox sees it (the host's working directory). Cached.
    const std::string &workspace_dir();
    // Clones "URL[@branch]" into the workspace with the matching git provider token of this process's
    // environment (git_workspace.hpp); returns the repository's sandbox path. Throws RuntimeError.
    std::string clone_repo(const std::string &spec);
    // Commits the sandbox's own layer (what it wrote over its image) as the image `name` of the client's
    // image store: the sandbox is frozen meanwhile and thawed after. Sandboxes started with `--image
    // name` then start from it (a fork). Returns the new manifest's digest. Throws RuntimeError (a
    // runtime without snapshots, a sandbox without an image, no freezer for an unprivileged caller).
    std::string snapshot(const std::string &name);

    // --- published ports (sdk ext/runtime_ports.h): a TCP port of the sandbox reachable from here ----
    // Publishes the sandbox's `port` at `address` (an IP address of this machine) and `machine_port`
    // (0: a free one) for as long as the sandbox runs; returns where it is reached ("127.0.0.1:41234").
    // Throws std::invalid_argument (a port out of range, already published, not an IP address) and
    // RuntimeError (not connected, a runtime that cannot publish ports, the machine's port taken).
    std::string publish_port(int port, int machine_port = 0, const std::string &address = "127.0.0.1");
    // Stops publishing `port`; its open connections close. Throws as publish_port.
    void unpublish_port(int port);
    // The ports published now, in port order. Throws RuntimeError as publish_port.
    std::vector<PublishedPort> published_ports();
    // The web view's address from this machine (http://HOST:PORT/ui): the host's own URL when it is
    // reached over TCP, else its port published on 127.0.0.1 for the purpose (kept until the sandbox
    // ends; a second call reuses it). Throws RuntimeError.
    std::string web_view_url();
    // The host's own HTTP address from this machine, for HTTP clients that cannot use url()'s unix
    // socket (OpenHands' requests session): url() itself when it is http(s), else the host's port
    // published on 127.0.0.1 (kept until the sandbox ends; a second call reuses it). Throws RuntimeError.
    std::string http_url();

    // --- the egress policy of a sandbox on the internet (sdk ext/runtime_network.h) ---------------
    // {"mode", "allow", "deny", "refused": N, "log": [{"address", "protocol", "port", "packets"}]}
    // (the lists, counter and log for network = "internet" only). Throws RuntimeError (not connected, a
    // runtime without an egress policy).
    nlohmann::json network_policy();
    // Changes it while the sandbox runs, all or nothing (an entry allowed leaves the deny list and the
    // reverse; `remove` takes entries out of either); returns the policy now, without the log. Throws
    // std::invalid_argument (an entry neither a CIDR nor a domain name, a sandbox not on the internet) and RuntimeError.
    nlohmann::json change_network_policy(const EgressChange &change);
    // --- lifetimes (sdk ext/runtime_lifetime.h; sandbox.lifetime, idle_timeout, idle_action) ------------
    // {"lifetime_s", "time_left_s", "expires_at" (Unix seconds), "idle_timeout_s", "idle_action", "idle_s",
    // "paused"}: nulls for what the sandbox was started without. Connected or not (then the session's
    // kept-alive sandbox, never resumed by asking). Throws RuntimeError (a runtime that keeps no
    // lifetime, no running sandbox for the session).
    nlohmann::json lifetime();
    // Moves the sandbox's end `seconds` later (1 .. ten years); returns lifetime(). Throws
    // std::invalid_argument (seconds out of range, a sandbox started without a lifetime), RuntimeError.
    nlohmann::json extend(long long seconds);

    // Ends the session: the backend stops the sandbox, or keeps it when sandbox.keep_runtime_alive
    // (then a record is left for `ahctl ps` / `ahctl stop`). Idempotent.
    void close();

    // --- a kept-alive session, without connecting to it (`ahctl stop`, `ps`, sweeps) ------------------
    // Ends this session's kept-alive sandbox and removes its record: without a word to it where the
    // backend can (sdk ext/runtime_reclaim.h), so one that no longer answers (its processes stopped,
    // frozen or hung) ends as fast as a healthy one; else by connecting to it and closing it. Nothing
    // to do is no error. Throws RuntimeError.
    void stop_kept_alive();
    // Whether this session's kept-alive sandbox still runs; nullopt when the backend cannot tell.
    std::optional<bool> kept_alive_exists();
    // Removes what this backend's ended sandboxes left on the machine, and the records of the kept-alive
    // sessions it found ended (returned). `thorough` also checks every record: slower with many.
    std::vector<std::string> reclaim_leftovers(bool thorough);

    const std::string &runtime_name() const;
    const std::string &module_name() const;
    const std::string &session_id() const;
    const std::string &url() const;
    const std::string &runtime_id() const;
    const std::string &last_status() const;
    const Config &config() const;

  private:
    struct Impl;
    explicit Runtime(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The runtime name `config` selects ([core] runtime, default docker; sandbox where Docker is absent).
std::string select_runtime_name(const Config &config, const Environment &env);
// A fresh random session id / API key (hex).
std::string random_hex(size_t bytes);

}  // namespace actionhost::client
