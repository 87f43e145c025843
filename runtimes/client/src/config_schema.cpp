#include "config_schema.hpp"

#include <unistd.h>

namespace actionhost::client::detail {

using nlohmann::json;
using T = FieldType;

const char *type_name(FieldType t) {
    switch (t) {
        case T::Bool: return "a boolean";
        case T::Int: return "an integer";
        case T::Float: return "a number";
        case T::Str: return "a string";
        case T::List: return "an array";
        case T::Dict: return "a table";
        case T::Any: return "a value";
    }
    return "a value";
}

const std::vector<Field> &core_fields() {
    static const std::vector<Field> fields = {
        // OpenHands' OpenHandsConfig fields that matter to a runtime.
        {"runtime", T::Str, "docker", false},
        {"workspace_base", T::Str, nullptr},
        {"workspace_mount_path_in_sandbox", T::Str, "/workspace", false},
        {"workspace_mount_path", T::Str, nullptr},
        {"workspace_mount_rewrite", T::Str, nullptr},
        {"run_as_openhands", T::Bool, true, false},
        {"enable_browser", T::Bool, true, false},
        {"debug", T::Bool, false, false},
        {"git_user_name", T::Str, "openhands", false},
        {"git_user_email", T::Str, "openhands@all-hands.dev", false},
        // The rest of OpenHandsConfig: accepted (an OpenHands config.toml loads), listed as ignored.
        {"default_agent", T::Any, nullptr, true, false}, {"file_store", T::Any, nullptr, true, false},
        {"file_store_path", T::Any, nullptr, true, false}, {"file_store_web_hook_url", T::Any, nullptr, true, false},
        {"file_store_web_hook_headers", T::Any, nullptr, true, false},
        {"file_store_web_hook_batch", T::Any, nullptr, true, false},
        {"save_trajectory_path", T::Any, nullptr, true, false},
        {"save_screenshots_in_trajectory", T::Any, nullptr, true, false},
        {"replay_trajectory_path", T::Any, nullptr, true, false}, {"search_api_key", T::Any, nullptr, true, false},
        {"cache_dir", T::Any, nullptr, true, false}, {"max_iterations", T::Any, nullptr, true, false},
        {"max_budget_per_task", T::Any, nullptr, true, false}, {"disable_color", T::Any, nullptr, true, false},
        {"jwt_secret", T::Any, nullptr, true, false}, {"file_uploads_max_file_size_mb", T::Any, nullptr, true, false},
        {"file_uploads_restrict_file_types", T::Any, nullptr, true, false},
        {"file_uploads_allowed_extensions", T::Any, nullptr, true, false},
        {"cli_multiline_input", T::Any, nullptr, true, false},
        {"conversation_max_age_seconds", T::Any, nullptr, true, false},
        {"enable_default_condenser", T::Any, nullptr, true, false},
        {"max_concurrent_conversations", T::Any, nullptr, true, false}, {"mcp_host", T::Any, nullptr, true, false},
        {"enable_mcp", T::Any, nullptr, true, false}, {"input_token_threshold", T::Any, nullptr, true, false},
        {"vscode_port", T::Any, nullptr, true, false}, {"e2b_api_key", T::Any, nullptr, true, false},
        // Credentials of cloud backends, as OpenHands names them in [core].
        {"runloop_api_key", T::Str, nullptr}, {"daytona_api_key", T::Str, nullptr}, {"daytona_api_url", T::Str, nullptr},
        {"daytona_target", T::Str, nullptr}, {"modal_api_token_id", T::Str, nullptr}, {"modal_api_token_secret", T::Str, nullptr},
        {"init_git_in_empty_workspace", T::Bool, false, false},
        // actionhost extensions.
        {"runtime_dirs", T::List, json::array(), false},  // extra directories holding runtime modules
        {"state_dir", T::Str, nullptr},                   // where kept-alive runtimes are recorded
    };
    return fields;
}

const std::vector<Field> &sandbox_fields() {
    static const std::vector<Field> fields = {
        {"remote_runtime_api_url", T::Str, "http://localhost:8000"},
        {"local_runtime_url", T::Str, "http://localhost", false},
        {"keep_runtime_alive", T::Bool, false, false},
        {"pause_closed_runtimes", T::Bool, true, false},
        {"rm_all_containers", T::Bool, false, false},
        {"api_key", T::Str, nullptr},
        {"base_container_image", T::Str, "nikolaik/python-nodejs:python3.12-nodejs22"},
        {"runtime_container_image", T::Str, nullptr},
        {"user_id", T::Int, static_cast<int>(::getuid()), false},
        {"timeout", T::Int, 120, false},
        {"remote_runtime_init_timeout", T::Int, 180, false},
        {"remote_runtime_api_timeout", T::Int, 180, false},
        {"remote_runtime_enable_retries", T::Bool, true, false},
        {"remote_runtime_class", T::Str, nullptr},
        {"enable_auto_lint", T::Bool, false, false},
        {"use_host_network", T::Bool, false, false},
        {"additional_networks", T::List, json::array(), false},
        // OpenHands: 0.0.0.0. Ours: the machine's loopback unless asked (docs/compat.md).
        {"runtime_binding_address", T::Str, "127.0.0.1", false},
        {"runtime_extra_build_args", T::List, nullptr},
        {"initialize_plugins", T::Bool, true, false},
        {"force_rebuild_runtime", T::Bool, false, false},
        {"runtime_extra_deps", T::Str, nullptr},
        {"runtime_startup_env_vars", T::Dict, json::object(), false},
        {"browsergym_eval_env", T::Str, nullptr},
        {"platform", T::Str, nullptr},
        {"close_delay", T::Int, 3600, false},
        {"remote_runtime_resource_factor", T::Int, 1, false},
        {"enable_gpu", T::Bool, false, false},
        {"docker_runtime_kwargs", T::Dict, nullptr},
        {"selected_repo", T::Str, nullptr},
        {"trusted_dirs", T::List, json::array(), false},
        {"vscode_port", T::Int, nullptr},
        {"volumes", T::Str, nullptr},
        {"cuda_visible_devices", T::Str, nullptr},
        // actionhost extensions (docs/runtimes.md).
        // "none", "internet" (its own namespace, user-mode networking, never the machine) or "host" (the
        // machine's network); true/false are still read as "host"/"none". Checked by the backend; unset,
        // each backend's own default: none for sandbox, Docker's bridge for docker.
        {"network", T::Any, nullptr},
        {"allow_out", T::List, json::array(), false},  // sandbox internet: CIDRs and names that may be reached; once given, only they
        {"deny_out", T::List, json::array(), false},   // sandbox internet: CIDRs and names that may not be reached
        {"dns", T::List, json::array(), false},        // sandbox internet: the resolver guard's upstream resolvers
        {"secrets", T::Dict, nullptr},                  // sandbox internet: NAME = {value, hosts, ...} added by the egress proxy, never inside
        {"upstream_ca_file", T::Str, nullptr},          // sandbox internet: CAs the egress proxy trusts for secrets' hosts beside the machine's
        {"memory_limit_mb", T::Int, 4096, false},      // sandbox/docker: memory limit, 0 = none
        {"pids_limit", T::Int, 1024, false},           // sandbox/docker: process limit, 0 = none
        {"cpu_limit", T::Float, 0.0, false},           // sandbox/docker: CPUs (e.g. 1.5), 0 = none
        {"registry_mirrors", T::List, json::array(), false},  // sandbox images: Docker Hub mirrors, tried first
        {"insecure_registries", T::List, json::array(), false},  // sandbox images: registries reached over plain http
        {"image_store", T::Str, nullptr},             // sandbox images: the store's directory
        {"image_max_size_mb", T::Int, 32768, false},  // sandbox images: what an image's layers may unpack to
        {"seccomp", T::Bool, true, false},             // sandbox/docker: the seccomp policy (off: mode-bit rules only)
        {"socket_memory_mb", T::Int, nullptr},         // sandbox: TCP buffer limit (cgroup v1); unset: memory/4, <= 256
        {"max_file_size_mb", T::Int, 8192, false},     // sandbox: largest file a process writes (RLIMIT_FSIZE), 0 = none
        {"address_space_mb", T::Int, 0, false},        // sandbox: address space per process (RLIMIT_AS), 0 = none
        {"workspace_idmap", T::Bool, true, false},     // sandbox: a root-owned -w DIR shown as the user by an idmapped mount, not chowned
        {"audit", T::Bool, true, false},               // sandbox: the audit trail kept outside (docs/security.md)
        {"audit_max_bytes", T::Int, 8388608, false},   // sandbox: an audit segment past this is rotated
        {"audit_keep_files", T::Int, 8, false},        // sandbox: audit segments kept (the oldest dropped, declared)
        {"disk_limit", T::Str, nullptr},               // sandbox: its own disk of this size ("2g"): writable layer, temp workspace
        {"docker_socket", T::Str, "/var/run/docker.sock", false},
        {"docker_install_mode", T::Str, "bind", false},  // docker: "bind" the install tree or "image"
        {"docker_mount_host_usr", T::Bool, false, false},  // docker, legacy opt-in: the machine's /usr over the image's
        {"lifetime", T::Int, nullptr},                 // sandbox: seconds until it ends by itself (docs/runtimes.md, Lifetimes)
        {"idle_timeout", T::Int, nullptr},             // sandbox: seconds without a request before idle_action
        {"idle_action", T::Str, nullptr},              // sandbox: "pause" (resumed by the next request) or "stop"
        {"warm_pool_size", T::Int, 0, false},          // local: hosts kept started ahead of use
        {"export_git_tokens", T::Bool, true, false},   // GITHUB/GITLAB/BITBUCKET_TOKEN + git credential helper inside
    };
    return fields;
}

const std::vector<std::string> &backend_sandbox_keys() {
    static const std::vector<std::string> keys = {
        // images (the sandbox runtime reads them through the client's image store; docker, remote and
        // kubernetes through their providers)
        "base_container_image", "runtime_container_image", "platform", "force_rebuild_runtime", "runtime_extra_build_args",
        "runtime_extra_deps", "image_store", "image_max_size_mb", "registry_mirrors", "insecure_registries",
        // the machine's files and devices
        "volumes", "enable_gpu", "cuda_visible_devices", "workspace_idmap", "disk_limit",
        // the audit trail
        "audit", "audit_max_bytes", "audit_keep_files",
        // limits
        "memory_limit_mb", "pids_limit", "cpu_limit", "seccomp", "socket_memory_mb", "max_file_size_mb", "address_space_mb",
        // how the host is reached and kept
        "vscode_port", "runtime_binding_address", "local_runtime_url", "use_host_network", "additional_networks",
        "rm_all_containers", "pause_closed_runtimes", "warm_pool_size",
        // lifetimes: kept where no client is needed (docs/runtimes.md, Lifetimes)
        "lifetime", "idle_timeout", "idle_action",
        // a provider's own
        "docker_socket", "docker_install_mode", "docker_mount_host_usr", "docker_runtime_kwargs", "api_key",
        "remote_runtime_api_url", "remote_runtime_api_timeout", "remote_runtime_init_timeout", "remote_runtime_class",
        "remote_runtime_enable_retries", "remote_runtime_resource_factor"};
    return keys;
}

const std::vector<Field> &security_fields() {
    static const std::vector<Field> fields = {
        // OpenHands' SecurityConfig: confirmation_mode is honoured by the host's policy stage; its
        // security_analyzer names an analyser of OpenHands' agent side, which runs in OpenHands, not here.
        {"confirmation_mode", T::Bool, false, false},
        {"security_analyzer", T::Str, nullptr, true, false},
        // actionhost's policy stage (docs/security.md, "Policy").
        {"confirm_risk", T::Str, nullptr}, {"confirmation_timeout_s", T::Int, nullptr}, {"deny_commands", T::List, nullptr},
        {"deny_paths", T::List, nullptr}, {"policy_modules", T::List, nullptr}, {"policy_timeout_ms", T::Int, nullptr},
    };
    return fields;
}

const std::vector<Field> &kubernetes_fields() {
    static const std::vector<Field> fields = {
        // OpenHands' KubernetesConfig (unset: the backend's default, docs/runtimes.md).
        {"namespace", T::Str, nullptr}, {"ingress_domain", T::Str, nullptr}, {"pvc_storage_size", T::Str, nullptr},
        {"pvc_storage_class", T::Str, nullptr}, {"resource_cpu_request", T::Str, nullptr},
        {"resource_memory_request", T::Str, nullptr}, {"resource_memory_limit", T::Str, nullptr},
        {"image_pull_secret", T::Str, nullptr}, {"ingress_tls_secret", T::Str, nullptr}, {"node_selector_key", T::Str, nullptr},
        {"node_selector_val", T::Str, nullptr}, {"tolerations_yaml", T::Str, nullptr}, {"privileged", T::Bool, nullptr},
        // actionhost extensions.
        {"kubeconfig", T::Str, nullptr}, {"context", T::Str, nullptr}, {"connect_to", T::Str, nullptr},
        {"actionhost_path", T::Str, nullptr}, {"service_account_dir", T::Str, nullptr},
        {"keep_pvc", T::Bool, nullptr},  // default true: the workspace volume outlives the pod, as in OpenHands
        {"ready_timeout_s", T::Float, nullptr}, {"readiness_initial_delay_s", T::Int, nullptr},
        {"readiness_period_s", T::Int, nullptr},
    };
    return fields;
}

}  // namespace actionhost::client::detail
