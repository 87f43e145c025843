// A cloud provider's REST API as the cloud backends (runloop, daytona) call it: a base URL, auth
// headers, JSON bodies, the provider's retry policy, and errors that say which provider call failed
// and why. Requests go through the client library's http_request service (host->http_request).
#pragma once

#include <actionhost/runtime.h>

#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace actionhost::runtime_support {

// Which answers are retried, and how long to wait between attempts (exponential with jitter).
struct RetryPolicy {
    int max_retries = 0;          // attempts = 1 + max_retries
    std::set<int> statuses;       // HTTP statuses retried
    bool server_errors = false;   // every 5xx retried
    bool transport_errors = false;  // no response (refused, reset, timeout) retried
    double initial_s = 1.0;       // first wait; doubles per attempt
    double max_s = 60.0;          // cap of one wait
    // A wait the provider asks for (Retry-After, retry-after-ms) replaces the computed one when it is
    // within [0, max_s]; one it cannot mean (longer) is ignored, as Stainless clients do.
    // With should_retry_header, `x-should-retry: true|false` overrides whether a reply is retried.
    bool should_retry_header = false;
};

struct RestReply {
    int status = 0;
    std::string body;
    // The body as JSON; null when it is not JSON.
    nlohmann::json json() const;
};

// A provider call that failed: no response (status 0), or a status the caller did not expect.
class ProviderError : public std::runtime_error {
  public:
    ProviderError(const std::string &what, int status) : std::runtime_error(what), status_(status) {}
    int status() const { return status_; }

  private:
    int status_;
};

class RestApi {
  public:
    // `provider` names the API in errors ("Runloop API"). `base_url` must be http:// or https://
    // (check_base_url). `headers` are "Name: value" lines sent with every request.
    RestApi(const ah_runtime_host_t *host, std::string provider, std::string base_url, std::vector<std::string> headers,
            RetryPolicy retry);

    // One call (retried per the policy). `body` null → no body. Throws ProviderError when no response
    // arrived after the retries.
    RestReply call(const std::string &method, const std::string &path, const nlohmann::json &body = nullptr,
                   double timeout_s = 30) const;
    // The same with a raw body of `content_type`.
    RestReply call_raw(const std::string &method, const std::string &path, const std::string &body,
                       const std::string &content_type, double timeout_s = 30) const;
    // call(), then ProviderError unless the status is one of `ok`; returns the JSON body.
    nlohmann::json expect(const std::string &method, const std::string &path, const nlohmann::json &body,
                          std::initializer_list<int> ok, double timeout_s = 30) const;

    // "<provider>: <METHOD> <path> → <status>: <message of the body>".
    ProviderError error_of(const std::string &method, const std::string &path, const RestReply &reply) const;

    // Sent with each attempt's number (Stainless clients send x-stainless-retry-count).
    void set_retry_count_header(std::string name) { retry_count_header_ = std::move(name); }
    const std::string &base_url() const { return base_url_; }

  private:
    const ah_runtime_host_t *host_;
    std::string provider_, base_url_;
    std::vector<std::string> headers_;
    RetryPolicy retry_;
    std::string retry_count_header_;
};

// Returns `url` without trailing slashes when it is an http:// or https:// URL with a host; else throws
// std::invalid_argument naming `what` (e.g. "DAYTONA_API_URL").
std::string check_base_url(const std::string &what, const std::string &url);

// The provider's message in an error body: "message", "detail" or "error" of a JSON object, else the
// body itself (cut to 300 bytes).
std::string error_message_of(const std::string &body);

}  // namespace actionhost::runtime_support
