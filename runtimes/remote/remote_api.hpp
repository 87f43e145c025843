// The OpenHands Remote Runtime API as its client sees it (remote_runtime.py, builder/remote.py): every
// request carries X-API-Key (and X-Session-API-Key once a response gave one), non-2xx answers become
// RemoteApiError with the JSON `detail`, 429 is retried 3 times and network errors 3 times (when
// remote_runtime_enable_retries) with exponential waits of 4–60 s.
#pragma once

#include <actionhost/runtime.h>

#include <actionhost/runtime_support/provider_http.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace remote {

class RemoteApiError : public std::runtime_error {
  public:
    RemoteApiError(const std::string &what, int status) : std::runtime_error(what), status_(status) {}
    int status() const { return status_; }  // 0: no answer

  private:
    int status_;
};

struct RetryPolicy {
    bool retry_network_errors = true;  // sandbox.remote_runtime_enable_retries
    int attempts = 3;
    double min_wait_s = 4, max_wait_s = 60;
    double timeout_s = 180;             // sandbox.remote_runtime_api_timeout
};

struct ApiReply {
    int status = 0;
    std::string body;
    nlohmann::json json;  // discarded when the body is not JSON
};

class RemoteApi {
  public:
    RemoteApi(const ah_runtime_host_t *host, const std::string &base_url, std::string api_key, RetryPolicy policy);

    // One call with the retry policy; returns any HTTP answer. Throws RemoteApiError(0) when no answer
    // arrived after the retries.
    ApiReply call(const std::string &method, const std::string &path, const std::string &body = "",
                  const std::string &content_type = "application/json", double timeout_s = 0);
    // As call, but a non-2xx answer or a non-JSON body throws RemoteApiError naming `what`.
    nlohmann::json expect(const std::string &method, const std::string &path, const nlohmann::json &body,
                          const std::string &what, double timeout_s = 0);

    void set_session_api_key(const std::string &key) { session_api_key_ = key; }
    const std::string &base_url() const { return http_.base_url(); }

  private:
    actionhost::runtime_support::ProviderHttp http_;
    std::string api_key_, session_api_key_;
    RetryPolicy policy_;
};

// The `detail` of an error body (or the body itself, shortened).
std::string detail_of(const std::string &body);

}  // namespace remote
