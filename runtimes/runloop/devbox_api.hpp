// The Runloop devbox calls the runloop backend makes (Runloop REST API v1 as runloop-api-client
// v0.50.0 calls it, see docs/runtimes.md): create, retrieve, list, wait_for_status, create_tunnel,
// suspend, resume, shutdown. Auth `Authorization: Bearer $RUNLOOP_API_KEY`; the client's retry policy
// (≤5 retries of 408/409/429/5xx and lost connections, 1 s doubling to 60 s, jittered).
#pragma once

#include <actionhost/runtime_support/rest_api.hpp>
#include <optional>
#include <string>
#include <vector>

namespace runloop {

class DevboxApi {
  public:
    DevboxApi(const ah_runtime_host_t *host, const std::string &base_url, const std::string &api_key);

    nlohmann::json create(const nlohmann::json &body);
    nlohmann::json retrieve(const std::string &id);
    // The first devbox in `status` named `name`, walking the pages (bounded).
    std::optional<nlohmann::json> find_by_name(const std::string &name, const std::string &status);
    // Long-polls until the devbox is in one of `statuses` or `timeout_s` passes (→ Timeout).
    nlohmann::json wait_for_status(const std::string &id, const std::vector<std::string> &statuses, double timeout_s);
    std::string create_tunnel(const std::string &id, int port);
    nlohmann::json lifecycle(const std::string &id, const std::string &verb);  // suspend | resume | shutdown

  private:
    actionhost::runtime_support::RestApi api_;
    actionhost::runtime_support::RestApi waiter_;  // the same API, 408 not retried (the long poll ended)
};

}  // namespace runloop
