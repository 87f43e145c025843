// The few Kubernetes API calls the backend makes (CoreV1 pods, services, PVCs; NetworkingV1 ingresses and
// network policies),
// with the bearer token of the cluster access, and Kubernetes `Status` errors turned into messages.
#pragma once

#include <actionhost/runtime.h>

#include <actionhost/runtime_support/provider_http.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "cluster_access.hpp"

namespace kube {

// A non-2xx answer: `code` is the HTTP status, `reason` the Status reason (NotFound, AlreadyExists...).
class KubeError : public std::runtime_error {
  public:
    KubeError(const std::string &what, int code, std::string reason)
        : std::runtime_error(what), code_(code), reason_(std::move(reason)) {}
    int code() const { return code_; }
    const std::string &reason() const { return reason_; }

  private:
    int code_;
    std::string reason_;
};

// "pods", "services", "persistentvolumeclaims" (core/v1), "ingresses" or "networkpolicies" (networking.k8s.io/v1).
class KubeApi {
  public:
    KubeApi(const ah_runtime_host_t *host, const ClusterAccess &access, std::string ns);

    // GET; nullopt on 404.
    std::optional<nlohmann::json> get(const std::string &resource, const std::string &name);
    nlohmann::json create(const std::string &resource, const nlohmann::json &object);
    // DELETE; false when it was already gone (404).
    bool remove(const std::string &resource, const std::string &name);

    const std::string &ns() const { return ns_; }
    const std::string &server() const { return http_.base_url(); }

  private:
    std::string collection(const std::string &resource) const;
    actionhost::runtime_support::ProviderReply call(const std::string &method, const std::string &path, const std::string &body);
    actionhost::runtime_support::ProviderHttp http_;
    TokenSource token_;
    std::string ns_;
};

}  // namespace kube
