// HTTP to a provider's API (Remote Runtime API, Kubernetes, cloud sandboxes) for backends. http:// and
// unix:// go through the client library's http_request service; https:// is made here with Poco NetSSL,
// verifying the server against the system CAs or the provider's own CA (a cluster CA from a kubeconfig
// or a service account), optionally presenting a client certificate. Linked only by backends that need
// it (library ah_runtime_provider_http), so the others carry no TLS code.
#pragma once

#include "actionhost/runtime_support/url_encode.hpp"

#include <actionhost/runtime.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

struct TlsOptions {
    std::string ca_file;           // PEM file of the CA(s) to trust ("" → the system CAs, unless ca_pem)
    std::string ca_pem;            // PEM text of the CA(s) to trust
    std::string client_cert_pem;   // client certificate (PEM text) ...
    std::string client_key_pem;    // ... and its private key
    bool insecure_skip_verify = false;
};

struct ProviderReply {
    int status = 0;
    std::string body;
    // The body as JSON, or a discarded value when it is not JSON.
    nlohmann::json json() const;
};

// No answer arrived (connection refused, TLS failure, name resolution, ...). `timed_out` when the wait ran out.
class ProviderUnreachable : public std::runtime_error {
  public:
    ProviderUnreachable(const std::string &what, bool timed_out) : std::runtime_error(what), timed_out_(timed_out) {}
    bool timed_out() const { return timed_out_; }

  private:
    bool timed_out_;
};

class ProviderHttp {
  public:
    // `base_url` is "http://h:p[/prefix]", "https://h:p[/prefix]" or "unix:///sock". Throws
    // std::invalid_argument for anything else, naming the URL.
    ProviderHttp(const ah_runtime_host_t *host, std::string base_url, TlsOptions tls = {});
    ~ProviderHttp();
    ProviderHttp(const ProviderHttp &) = delete;
    ProviderHttp &operator=(const ProviderHttp &) = delete;

    // One request to base_url + path. `headers` are "Name: value" lines. Throws ProviderUnreachable.
    ProviderReply call(const std::string &method, const std::string &path, const std::string &body = "",
                       const std::vector<std::string> &headers = {}, double timeout_s = 60) const;

    const std::string &base_url() const { return base_url_; }

  private:
    struct Tls;
    const ah_runtime_host_t *host_;
    std::string base_url_;
    std::unique_ptr<Tls> tls_;  // set for https://
};

}  // namespace actionhost::runtime_support
