#include "remote_api.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <actionhost/common/json_write.hpp>

namespace remote {

using actionhost::runtime_support::ProviderUnreachable;
using nlohmann::json;

std::string detail_of(const std::string &body) {
    json j = json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("detail")) return j["detail"].is_string() ? j["detail"].get<std::string>() : actionhost::common::dump_json(j["detail"]);
    return body.size() > 500 ? body.substr(0, 500) + "..." : body;
}

RemoteApi::RemoteApi(const ah_runtime_host_t *host, const std::string &base_url, std::string api_key, RetryPolicy policy)
    : http_(host, base_url), api_key_(std::move(api_key)), policy_(policy) {}

namespace {
// tenacity's wait_exponential(multiplier=1, min, max) before attempt n+1.
double backoff(int attempt, const RetryPolicy &p) {
    return std::clamp(p.min_wait_s * std::pow(2.0, attempt - 1), p.min_wait_s, p.max_wait_s);
}
}  // namespace

ApiReply RemoteApi::call(const std::string &method, const std::string &path, const std::string &body,
                         const std::string &content_type, double timeout_s) {
    std::vector<std::string> headers = {"X-API-Key: " + api_key_};
    if (!session_api_key_.empty()) headers.push_back("X-Session-API-Key: " + session_api_key_);
    if (!body.empty() || method == "POST") headers.push_back("Content-Type: " + content_type);
    double timeout = timeout_s > 0 ? timeout_s : policy_.timeout_s;
    int network_failures = 0, busy = 0;
    for (int i = 0; i < 100; ++i) {
        try {
            auto r = http_.call(method, path, body, headers, timeout);
            if (r.status == 429 && ++busy < policy_.attempts) {
                std::this_thread::sleep_for(std::chrono::duration<double>(backoff(busy, policy_)));
                continue;
            }
            if (r.status == 429)
                throw RemoteApiError("Remote Runtime API " + method + " " + path + " still answered 429 Too Many Requests after " +
                                         std::to_string(policy_.attempts) + " attempts",
                                     429);
            return {r.status, r.body, json::parse(r.body, nullptr, false)};
        } catch (const ProviderUnreachable &e) {
            if (!policy_.retry_network_errors || ++network_failures >= policy_.attempts)
                throw RemoteApiError("Remote Runtime API unreachable (" + std::to_string(network_failures + (policy_.retry_network_errors ? 0 : 1)) +
                                         " attempt(s)): " + e.what(),
                                     0);
            std::this_thread::sleep_for(std::chrono::duration<double>(backoff(network_failures, policy_)));
        }
    }
    throw RemoteApiError("Remote Runtime API " + method + " " + path + ": too many retries", 0);
}

json RemoteApi::expect(const std::string &method, const std::string &path, const json &body, const std::string &what,
                       double timeout_s) {
    ApiReply r = call(method, path, body.is_null() ? "" : actionhost::common::dump_json(body), "application/json", timeout_s);
    if (r.status < 200 || r.status >= 300)
        throw RemoteApiError("Remote Runtime API: " + what + " (" + method + " " + path + ") failed with HTTP " +
                                 std::to_string(r.status) + ": " + detail_of(r.body),
                             r.status);
    if (r.json.is_discarded())
        throw RemoteApiError("Remote Runtime API: " + what + " (" + method + " " + path + ") answered a body that is not JSON: " +
                                 detail_of(r.body),
                             r.status);
    return r.json;
}

}  // namespace remote
