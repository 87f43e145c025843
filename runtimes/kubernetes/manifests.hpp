// The objects of one sandbox, as OpenHands' KubernetesRuntime makes them: pod
// openhands-runtime-<sid> (labels app=openhands-runtime, session=<sid>), PVC <pod>-pvc mounted at the
// workspace, services <pod>-svc (8080) and <pod>-svc-code (8081), ingress <pod>-ingress-code for
// <sid>.<ingress_domain>. Bodies leave out what is unset, as the Python client does.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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
    // sandbox.lifetime as the pod's activeDeadlineSeconds: the kubelet ends the pod (phase Failed, reason
    // DeadlineExceeded) that long after it started. nullopt: none.
    std::optional<long> active_deadline_s;
    // [sandbox] network keys (egress_plan): the egress rules of the pod's NetworkPolicy (nullopt: no
    // policy, the pod network unrestricted), and its resolvers (dnsPolicy None with these nameservers).
    std::optional<nlohmann::json> egress;
    std::vector<std::string> dns;
};

inline const int kServerPort = 8080, kVscodePort = 8081;

std::string pod_name(const std::string &session_id);
inline std::string pvc_name(const std::string &pod) { return pod + "-pvc"; }
inline std::string service_name(const std::string &pod) { return pod + "-svc"; }
inline std::string code_service_name(const std::string &pod) { return pod + "-svc-code"; }
inline std::string ingress_name(const std::string &pod) { return pod + "-ingress-code"; }
inline std::string network_policy_name(const std::string &pod) { return pod + "-egress"; }

nlohmann::json pod_manifest(const SandboxSpec &s);
nlohmann::json pvc_manifest(const SandboxSpec &s);
nlohmann::json service_manifest(const SandboxSpec &s, bool code);
nlohmann::json ingress_manifest(const SandboxSpec &s);
// The NetworkPolicy of the sandbox's pod (s.egress set): Egress only, its rules s.egress. Enforced by the
// cluster's network plugin; one that does not enforce NetworkPolicy (kindnet, flannel alone) ignores it.
nlohmann::json network_policy_manifest(const SandboxSpec &s);

// `sandbox.network`, allow_out, deny_out and dns as a NetworkPolicy's egress and the pod's resolvers:
//   - unset or "host" with no list: no policy (the pod network as it is; "host" never means the node's
//     network, hostNetwork, which no NetworkPolicy governs: a note says so);
//   - "none": a policy with no egress rule: nothing goes out, DNS neither (a resolver is a way out, and
//     the host needs none: the client comes in through the service, which egress rules do not touch);
//   - "internet" (or unset with a list): 0.0.0.0/0 and ::/0 except the private ranges (10/8, 172.16/12,
//     192.168/16, 100.64/10, 169.254/16, fc00::/7, fe80::/10), where a cluster's pod and service ranges,
//     its API server and the metadata service lie; plus DNS (UDP and TCP 53) to the cluster's resolver
//     (kube-dns pods of kube-system) or to `dns`;
//   - allow_out CIDRs instead of 0.0.0.0/0 and ::/0 (an entry inside a private range opens that much of
//     it, one reaching beyond opens only public space, as the sandbox runtime reads them);
//   - deny_out CIDRs as `except` of the blocks they lie in (a block inside a denied range is dropped);
//   - dns: dnsPolicy None with these nameservers (at most 3, Kubernetes' limit).
// Domain names in the lists are refused: a NetworkPolicy selects addresses only. Throws
// std::invalid_argument naming the key and the reason.
struct EgressPlan {
    std::optional<nlohmann::json> egress;  // the policy's egress rules, or nullopt for no policy
    std::vector<std::string> dns;
    std::string note;
};
EgressPlan egress_plan(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                       const std::optional<std::string> &deny, const std::optional<std::string> &dns);

// tolerations_yaml (a YAML list) as JSON. Throws std::runtime_error naming the key.
nlohmann::json tolerations_from_yaml(const std::string &yaml);

}  // namespace kube
