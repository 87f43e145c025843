// The objects of one sandbox, as OpenHands' KubernetesRuntime makes them: pod
// openhands-runtime-<sid> (labels app=openhands-runtime, session=<sid>), PVC <pod>-pvc mounted at the
// workspace, services <pod>-svc (8080) and <pod>-svc-code (8081), ingress <pod>-ingress-code for
// <sid>.<ingress_domain>. Bodies leave out what is unset, as the Python client does.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kube {

struct SandboxSpec {
    std::string session_id, image, workspace;
    std::vector<std::string> command;
    std::map<std::string, std::string> env;
    // [kubernetes]
    std::string ingress_domain = "localhost", pvc_storage_size = "2Gi", pvc_storage_class;
    std::string cpu_request = "1", memory_request = "1Gi", memory_limit = "2Gi";
    std::string image_pull_secret, ingress_tls_secret, node_selector_key, node_selector_val;
    nlohmann::json tolerations;  // a JSON array, or null
    bool privileged = false;
    int readiness_initial_delay_s = 0, readiness_period_s = 1;
};

inline const int kServerPort = 8080, kVscodePort = 8081;

std::string pod_name(const std::string &session_id);
inline std::string pvc_name(const std::string &pod) { return pod + "-pvc"; }
inline std::string service_name(const std::string &pod) { return pod + "-svc"; }
inline std::string code_service_name(const std::string &pod) { return pod + "-svc-code"; }
inline std::string ingress_name(const std::string &pod) { return pod + "-ingress-code"; }

nlohmann::json pod_manifest(const SandboxSpec &s);
nlohmann::json pvc_manifest(const SandboxSpec &s);
nlohmann::json service_manifest(const SandboxSpec &s, bool code);
nlohmann::json ingress_manifest(const SandboxSpec &s);

// tolerations_yaml (a YAML list) as JSON. Throws std::runtime_error naming the key.
nlohmann::json tolerations_from_yaml(const std::string &yaml);

}  // namespace kube
