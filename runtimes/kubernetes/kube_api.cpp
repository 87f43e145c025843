#include "kube_api.hpp"
#include <actionhost/common/json_write.hpp>

namespace kube {

using actionhost::runtime_support::ProviderReply;
using actionhost::runtime_support::ProviderUnreachable;
using actionhost::runtime_support::url_encode;
using nlohmann::json;

KubeApi::KubeApi(const ah_runtime_host_t *host, const ClusterAccess &access, std::string ns)
    : http_(host, access.server, access.tls), token_(access), ns_(std::move(ns)) {}

std::string KubeApi::collection(const std::string &resource) const {
    std::string group = resource == "ingresses" || resource == "networkpolicies" ? "/apis/networking.k8s.io/v1" : "/api/v1";
    return group + "/namespaces/" + url_encode(ns_) + "/" + resource;
}

ProviderReply KubeApi::call(const std::string &method, const std::string &path, const std::string &body) {
    std::vector<std::string> headers = {"Accept: application/json"};
    if (std::string t = token_.token(); !t.empty()) headers.push_back("Authorization: Bearer " + t);
    if (!body.empty()) headers.push_back("Content-Type: application/json");
    ProviderReply r;
    try {
        r = http_.call(method, path, body, headers, 30);
    } catch (const ProviderUnreachable &e) {
        throw KubeError(std::string("Kubernetes API unreachable: ") + e.what(), 0, e.timed_out() ? "Timeout" : "Unreachable");
    }
    if (r.status >= 200 && r.status < 300) return r;
    json status = r.json();
    std::string reason = status.is_object() ? status.value("reason", "") : "";
    std::string message = status.is_object() ? status.value("message", r.body) : r.body;
    throw KubeError("Kubernetes API: " + method + " " + path + " → HTTP " + std::to_string(r.status) +
                        (reason.empty() ? "" : " " + reason) + ": " + message,
                    r.status, reason);
}

std::optional<json> KubeApi::get(const std::string &resource, const std::string &name) {
    try {
        ProviderReply r = call("GET", collection(resource) + "/" + url_encode(name), "");
        json j = r.json();
        if (!j.is_object()) throw KubeError("Kubernetes API: GET " + resource + "/" + name + " answered no JSON object", r.status, "");
        return j;
    } catch (const KubeError &e) {
        if (e.code() == 404) return std::nullopt;
        throw;
    }
}

json KubeApi::create(const std::string &resource, const json &object) {
    ProviderReply r = call("POST", collection(resource), actionhost::common::dump_json(object));
    return r.json();
}

bool KubeApi::remove(const std::string &resource, const std::string &name) {
    try {
        call("DELETE", collection(resource) + "/" + url_encode(name), "{}");
        return true;
    } catch (const KubeError &e) {
        if (e.code() == 404) return false;
        throw;
    }
}

}  // namespace kube
