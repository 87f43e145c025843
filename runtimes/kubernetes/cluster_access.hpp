// Where the Kubernetes API is and how to authenticate to it, as the kubernetes Python client finds it:
// a kubeconfig (YAML: current-context → cluster server + CA, user token / tokenFile /
// client certificate) or the in-cluster service account (KUBERNETES_SERVICE_HOST/PORT, token, ca.crt).
#pragma once

#include <actionhost/runtime_support/provider_http.hpp>
#include <chrono>
#include <optional>
#include <string>

namespace kube {

struct ClusterAccess {
    std::string server;     // https://host:port or http://host:port
    actionhost::runtime_support::TlsOptions tls;
    std::string token;      // bearer token given inline
    std::string token_file; // bearer token read from this file (re-read every minute)
    std::string namespace_; // the context's namespace ("" when none)
    std::string source;     // "kubeconfig <path> context <name>" or "in-cluster service account"
};

struct AccessSettings {
    std::string kubeconfig;            // kubernetes.kubeconfig ("" → search)
    std::string context;               // kubernetes.context ("" → current-context)
    std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// Resolution: an explicit kubeconfig; else in-cluster when KUBERNETES_SERVICE_HOST is set; else
// $KUBECONFIG (first entry) or ~/.kube/config. Throws std::runtime_error saying what is missing.
ClusterAccess resolve_cluster_access(const AccessSettings &settings);
ClusterAccess load_kubeconfig(const std::string &path, const std::string &context);
ClusterAccess load_in_cluster(const std::string &service_account_dir);

// The bearer token to send now ("" for none): the inline token, or the token file's content re-read
// when older than a minute.
class TokenSource {
  public:
    explicit TokenSource(const ClusterAccess &access) : token_(access.token), file_(access.token_file) {}
    std::string token();

  private:
    std::string token_, file_;
    std::chrono::steady_clock::time_point read_at_{};
};

}  // namespace kube
