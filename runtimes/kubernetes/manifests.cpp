#include "manifests.hpp"

#include <actionhost/runtime_support/network_keys.hpp>
#include <yaml-cpp/yaml.h>

#include <stdexcept>

namespace kube {

using nlohmann::json;

std::string pod_name(const std::string &sid) {
    // A DNS-1123 label: the pod name ends up in service and host names.
    std::string name = "openhands-runtime-" + sid;
    bool ok = name.size() <= 63 - 13;  // room for "-ingress-code"
    for (char c : sid) ok = ok && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-');
    if (!ok || sid.empty() || sid.back() == '-')
        throw std::runtime_error("session id '" + sid + "' cannot name a Kubernetes pod (lower-case letters, digits and '-', at most 32 characters)");
    return name;
}

namespace {
json labels(const SandboxSpec &s) { return {{"app", "openhands-runtime"}, {"session", s.session_id}}; }
}  // namespace

json pod_manifest(const SandboxSpec &s) {
    std::string pod = pod_name(s.session_id);
    json env = json::array();
    for (const auto &[k, v] : s.env) env.push_back({{"name", k}, {"value", v}});
    // The host binds its pod IP (--host $(POD_IP)): the downward API gives it.
    env.push_back({{"name", "POD_IP"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}});
    json container = {
        {"name", "runtime"},
        {"image", s.image},
        {"command", s.command},
        {"workingDir", "/"},
        {"env", env},
        {"ports", json::array({{{"containerPort", kServerPort}, {"name", "http"}},
                               {{"containerPort", kVscodePort}, {"name", "vscode"}},
                               {{"containerPort", 30082}},
                               {{"containerPort", 30083}}})},
        {"volumeMounts", json::array({{{"name", "workspace-volume"}, {"mountPath", s.workspace}}})},
        {"resources", {{"limits", {{"memory", s.memory_limit}}}, {"requests", {{"cpu", s.cpu_request}, {"memory", s.memory_request}}}}},
        {"readinessProbe",
         {{"httpGet", {{"path", "/alive"}, {"port", kServerPort}}},
          {"initialDelaySeconds", s.readiness_initial_delay_s},
          {"periodSeconds", s.readiness_period_s},
          {"timeoutSeconds", 5},
          {"successThreshold", 1},
          {"failureThreshold", 3}}},
        {"securityContext", {{"privileged", s.privileged}}}};
    json spec = {{"restartPolicy", "Never"},
                 {"containers", json::array({container})},
                 {"volumes", json::array({{{"name", "workspace-volume"}, {"persistentVolumeClaim", {{"claimName", pvc_name(pod)}}}}})}};
    if (!s.image_pull_secret.empty()) spec["imagePullSecrets"] = json::array({{{"name", s.image_pull_secret}}});
    if (!s.node_selector_key.empty() && !s.node_selector_val.empty()) spec["nodeSelector"] = {{s.node_selector_key, s.node_selector_val}};
    if (s.tolerations.is_array() && !s.tolerations.empty()) spec["tolerations"] = s.tolerations;
    if (s.active_deadline_s) spec["activeDeadlineSeconds"] = *s.active_deadline_s;
    if (!s.dns.empty()) {
        spec["dnsPolicy"] = "None";  // only dnsConfig's resolvers, as docker run --dns
        spec["dnsConfig"] = {{"nameservers", s.dns}};
    }
    return {{"metadata", {{"name", pod}, {"labels", labels(s)}}}, {"spec", spec}};
}

json pvc_manifest(const SandboxSpec &s) {
    std::string pod = pod_name(s.session_id);
    json spec = {{"accessModes", json::array({"ReadWriteOnce"})}, {"resources", {{"requests", {{"storage", s.pvc_storage_size}}}}}};
    if (!s.pvc_storage_class.empty()) spec["storageClassName"] = s.pvc_storage_class;
    return {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", {{"name", pvc_name(pod)}, {"labels", labels(s)}}}, {"spec", spec}};
}

json service_manifest(const SandboxSpec &s, bool code) {
    std::string pod = pod_name(s.session_id);
    json port = code ? json{{"port", kVscodePort}, {"targetPort", "vscode"}, {"name", "code"}}
                     : json{{"port", kServerPort}, {"targetPort", "http"}, {"name", "execution-server"}};
    return {{"metadata", {{"name", code ? code_service_name(pod) : service_name(pod)}, {"labels", labels(s)}}},
            {"spec", {{"type", "ClusterIP"}, {"selector", labels(s)}, {"ports", json::array({port})}}}};
}

json ingress_manifest(const SandboxSpec &s) {
    std::string pod = pod_name(s.session_id);
    std::string host = s.session_id + "." + s.ingress_domain;
    json tls = json::array();
    if (!s.ingress_tls_secret.empty()) tls.push_back({{"hosts", json::array({host})}, {"secretName", s.ingress_tls_secret}});
    json backend = {{"service", {{"name", code_service_name(pod)}, {"port", {{"number", kVscodePort}}}}}};
    return {{"apiVersion", "networking.k8s.io/v1"},
            {"metadata", {{"name", ingress_name(pod)}, {"labels", labels(s)}, {"annotations", {{"external-dns.alpha.kubernetes.io/hostname", host}}}}},
            {"spec", {{"rules", json::array({{{"host", host}, {"http", {{"paths", json::array({{{"path", "/"}, {"pathType", "Prefix"}, {"backend", backend}}})}}}}})},
                      {"tls", tls}}}};
}

json network_policy_manifest(const SandboxSpec &s) {
    std::string pod = pod_name(s.session_id);
    return {{"apiVersion", "networking.k8s.io/v1"},
            {"kind", "NetworkPolicy"},
            {"metadata", {{"name", network_policy_name(pod)}, {"labels", labels(s)}}},
            {"spec", {{"podSelector", {{"matchLabels", labels(s)}}}, {"policyTypes", json::array({"Egress"})},
                      {"egress", s.egress.value_or(json::array())}}}};
}

namespace {

namespace rs = actionhost::runtime_support;

const char *kNoNames = "a NetworkPolicy selects addresses (ipBlock), not names; list the addresses, or use the sandbox runtime (-r sandbox)";

json dns_ports() {
    return json::array({{{"protocol", "UDP"}, {"port", 53}}, {{"protocol", "TCP"}, {"port", 53}}});
}

// One ipBlock of `block` with the excepts it needs: the private ranges strictly inside it (an entry
// reaching beyond them opens only public space) and the denied ranges inside it.
json ip_block(const rs::Cidr &block, const std::vector<rs::Cidr> &deny) {
    std::vector<rs::Cidr> except;
    auto add = [&](const rs::Cidr &c) {
        if (!block.contains(c) || c == block) return;  // Kubernetes takes only strict subsets
        for (const auto &e : except)
            if (e.contains(c)) return;
        except.push_back(c);
    };
    for (const auto &p : rs::private_ranges()) add(p);
    for (const auto &d : deny) add(d);
    json b = {{"cidr", block.text()}};
    if (!except.empty()) {
        b["except"] = json::array();
        for (const auto &e : except) b["except"].push_back(e.text());
    }
    return {{"ipBlock", b}};
}

}  // namespace

EgressPlan egress_plan(const std::optional<std::string> &mode, const std::optional<std::string> &allow,
                       const std::optional<std::string> &deny, const std::optional<std::string> &dns) {
    const rs::NetworkKeys keys = rs::read_network_keys(mode, allow, deny, dns);
    const std::vector<rs::Cidr> allowed = rs::cidr_entries(keys.allow, "sandbox.allow_out", kNoNames);
    const std::vector<rs::Cidr> denied = rs::cidr_entries(keys.deny, "sandbox.deny_out", kNoNames);
    EgressPlan plan;
    plan.dns = rs::dns_addresses(keys.dns);
    if (plan.dns.size() > 3)
        throw std::invalid_argument("sandbox.dns: a Kubernetes pod takes at most 3 nameservers (dnsConfig), not " + std::to_string(plan.dns.size()));
    if (keys.mode == rs::NetworkMode::Host) {
        plan.note = "network = \"host\" on Kubernetes is the pod network, unrestricted (no NetworkPolicy); never the node's network";
        return plan;
    }
    if (keys.mode == rs::NetworkMode::None) {
        plan.egress = json::array();  // no rule: nothing leaves the pod
        return plan;
    }
    if (keys.mode == rs::NetworkMode::Unset && allowed.empty() && denied.empty()) return plan;  // as before any key

    std::vector<rs::Cidr> blocks = allowed;
    if (blocks.empty()) blocks = {*rs::parse_cidr("0.0.0.0/0"), *rs::parse_cidr("::/0")};
    json to = json::array();
    for (const auto &b : blocks) {
        bool dropped = false;
        for (const auto &d : denied) dropped = dropped || d.contains(b);  // denied whole: deny comes first
        if (!dropped) to.push_back(ip_block(b, denied));
    }
    plan.egress = json::array();
    if (!to.empty()) plan.egress->push_back({{"to", to}});
    // Names resolve through the cluster's resolver (in a private range, so allowed by a rule of its own),
    // or through the resolvers asked for.
    json resolvers = json::array();
    if (plan.dns.empty()) {
        resolvers.push_back({{"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", "kube-system"}}}}},
                             {"podSelector", {{"matchLabels", {{"k8s-app", "kube-dns"}}}}}});
    } else {
        for (const auto &a : plan.dns) resolvers.push_back({{"ipBlock", {{"cidr", rs::parse_cidr(a)->text()}}}});
    }
    plan.egress->push_back({{"to", resolvers}, {"ports", dns_ports()}});
    return plan;
}

namespace {
json to_json(const YAML::Node &n) {
    if (n.IsSequence()) {
        json a = json::array();
        for (const auto &x : n) a.push_back(to_json(x));
        return a;
    }
    if (n.IsMap()) {
        json o = json::object();
        for (const auto &kv : n) o[kv.first.as<std::string>()] = to_json(kv.second);
        return o;
    }
    if (n.IsNull()) return nullptr;
    std::string text = n.as<std::string>();
    if (n.Tag() == "!") return text;  // quoted: a string whatever it looks like
    long long i;
    if (YAML::convert<long long>::decode(n, i)) return i;
    bool b;
    if (YAML::convert<bool>::decode(n, b)) return b;
    return text;
}
}  // namespace

json tolerations_from_yaml(const std::string &yaml) {
    YAML::Node n;
    try {
        n = YAML::Load(yaml);
    } catch (const YAML::Exception &e) {
        throw std::runtime_error(std::string("kubernetes.tolerations_yaml is not valid YAML: ") + e.what());
    }
    if (n.IsNull()) return nullptr;
    if (!n.IsSequence()) throw std::runtime_error("kubernetes.tolerations_yaml must be a YAML list of tolerations");
    return to_json(n);
}

}  // namespace kube
