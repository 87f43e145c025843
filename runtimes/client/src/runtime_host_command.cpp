// What a backend starts: the host's command line (as JSON) and the environment it starts with.
#include "actionhost/client/git_workspace.hpp"
#include "actionhost/client/sandbox_env.hpp"
#include "config_schema.hpp"
#include "runtime_impl.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::client {

namespace {

// The sandbox's user as OpenHands' DockerRuntime picks it: RUNTIME_USERNAME / RUNTIME_UID, else
// openhands/1000 when run_as_openhands, else root/0 — except that an explicit `sandbox.user_id`
// (SANDBOX_USER_ID) is openhands' uid (OpenHands parses it but runs as 1000; docs/compat.md). Backends
// that must run as the caller substitute it (see each backend).
std::pair<std::string, int> sandbox_user(const Config &config, const Environment &env) {
    bool as_openhands = config.get_bool("core.run_as_openhands");
    std::string user = as_openhands ? "openhands" : "root";
    int uid = as_openhands ? 1000 : 0;
    if (as_openhands && config.is_explicit("sandbox.user_id")) uid = static_cast<int>(config.get_number("sandbox.user_id", 1000));
    if (auto it = env.find("RUNTIME_USERNAME"); it != env.end() && !it->second.empty()) user = it->second;
    if (auto it = env.find("RUNTIME_UID"); it != env.end() && !it->second.empty()) {
        try {
            uid = std::stoi(it->second);
        } catch (...) {
        }
    }
    return {user, uid};
}

}  // namespace

using nlohmann::json;

void Runtime::Impl::build_host_command() {
    const Config &c = options.config;
    json args = json::array({"--working-dir", c.get_string("core.workspace_mount_path_in_sandbox", "/workspace")});
    if (!options.plugins.empty() && (c.get_bool("sandbox.initialize_plugins") || !c.is_explicit("sandbox.initialize_plugins"))) {
        args.push_back("--plugins");
        for (const auto &p : options.plugins) args.push_back(p);
    }
    auto [user, uid] = sandbox_user(c, env);
    args.push_back("--username");
    args.push_back(user);
    args.push_back("--user-id");
    args.push_back(std::to_string(uid));
    if (auto eval = c.get_text("sandbox.browsergym_eval_env")) {
        args.push_back("--browsergym-eval-env");
        args.push_back(*eval);
    }
    if (!c.get_bool("core.enable_browser")) args.push_back("--no-enable-browser");
    for (const auto &d : plugin_dirs) {
        args.push_back("--plugin-dir");
        args.push_back(d);
    }
    // [security] for the host's policy stage: each key set, as the host reads it (lists as JSON text).
    for (const auto &field : detail::security_fields()) {
        const std::string key = "security." + field.name;
        if (!field.used || !c.is_explicit(key)) continue;
        const json value = c.get(key);
        if (value.is_null()) continue;
        args.push_back("--set");
        args.push_back(key + "=" + (value.is_string() ? value.get<std::string>() : actionhost::common::dump_json(value)));
    }
    host_command_json = actionhost::common::dump_json(args);

    // The host process starts with the sandbox's variables too (a backend like docker or a remote API
    // passes them at creation); connect() then sets them in bash, ~/.bashrc and the kernel.
    json e = json::object();
    for (const auto &[k, v] : initial_env()) e[k] = v;
    for (const auto &[k, v] : startup_env_vars(c)) e[k] = v;
    for (const auto &[k, v] : options.env) e[k] = v;
    if (!e.contains("SESSION_API_KEY")) e["SESSION_API_KEY"] = api_key;
    api_key = e["SESSION_API_KEY"].get<std::string>();
    env_json = actionhost::common::dump_json(e);
}

Environment Runtime::Impl::initial_env() const {
    Environment env = initial_sandbox_env(options.config);
    // OpenHands exports the provider tokens into its sandboxes: here those of the client's environment.
    if (options.config.get_bool("sandbox.export_git_tokens") && !git_tokens_outside)
        for (const auto &[k, v] : git_token_env(git_tokens_from_env(this->env))) env[k] = v;
    for (const auto &[k, v] : options.sandbox_env) env[k] = v;
    return env;
}

}  // namespace actionhost::client
