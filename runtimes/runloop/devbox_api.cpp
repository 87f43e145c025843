#include "devbox_api.hpp"

#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/url_encode.hpp>
#include <algorithm>
#include <chrono>

namespace runloop {

using actionhost::runtime_support::ProviderError;
using actionhost::runtime_support::RestApi;
using actionhost::runtime_support::RetryPolicy;
using nlohmann::json;
using actionhost::runtime_support::url_encode;

namespace {

RetryPolicy runloop_retries() {
    RetryPolicy p;
    p.max_retries = 5;
    p.statuses = {408, 409, 429};
    p.server_errors = true;
    p.transport_errors = true;
    p.initial_s = 1.0;
    p.max_s = 60.0;
    p.should_retry_header = true;  // the Stainless client's x-should-retry header
    return p;
}

// wait_for_status answers 408 when its long poll ends: the caller polls again, it is not a failure.
RetryPolicy wait_retries() {
    RetryPolicy p = runloop_retries();
    p.statuses = {409, 429};
    return p;
}

}  // namespace

DevboxApi::DevboxApi(const ah_runtime_host_t *host, const std::string &base_url, const std::string &api_key)
    : api_(host, "Runloop API", base_url, {"Authorization: Bearer " + api_key, "User-Agent: actionhost-runloop/0.1"}, runloop_retries()),
      waiter_(host, "Runloop API", base_url, {"Authorization: Bearer " + api_key, "User-Agent: actionhost-runloop/0.1"}, wait_retries()) {
    api_.set_retry_count_header("x-stainless-retry-count");
    waiter_.set_retry_count_header("x-stainless-retry-count");
}

json DevboxApi::create(const json &body) { return api_.expect("POST", "/v1/devboxes", body, {200, 201}); }

json DevboxApi::retrieve(const std::string &id) { return api_.expect("GET", "/v1/devboxes/" + url_encode(id), nullptr, {200}); }

std::optional<json> DevboxApi::find_by_name(const std::string &name, const std::string &status) {
    std::string after;
    for (int page = 0; page < 50; ++page) {
        std::string path = "/v1/devboxes?status=" + url_encode(status) + "&limit=100";
        if (!after.empty()) path += "&starting_after=" + url_encode(after);
        json list = api_.expect("GET", path, nullptr, {200});
        const json &boxes = list.contains("devboxes") && list["devboxes"].is_array() ? list["devboxes"] : json::array();
        for (const auto &d : boxes)
            if (d.value("name", "") == name) return d;
        if (!list.value("has_more", false) || boxes.empty()) return std::nullopt;
        after = boxes.back().value("id", "");
    }
    return std::nullopt;
}

json DevboxApi::wait_for_status(const std::string &id, const std::vector<std::string> &statuses, double timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    std::string path = "/v1/devboxes/" + url_encode(id) + "/wait_for_status";
    for (int i = 0; i < 10000; ++i) {
        auto r = waiter_.call("POST", path, json{{"statuses", statuses}}, 40);
        if (r.status == 200) {
            json d = r.json();
            std::string st = d.value("status", "");
            if (std::find(statuses.begin(), statuses.end(), st) != statuses.end()) return d;
        } else if (r.status != 408) {
            throw api_.error_of("POST", path, r);
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    json d = retrieve(id);
    throw actionhost::runtime_support::Timeout("Runloop devbox " + id + " is still '" + d.value("status", "?") +
                                               "' after " + std::to_string(static_cast<int>(timeout_s)) + " s");
}

std::string DevboxApi::create_tunnel(const std::string &id, int port) {
    json t = api_.expect("POST", "/v1/devboxes/" + url_encode(id) + "/create_tunnel", json{{"port", port}}, {200});
    std::string url = t.value("url", "");
    if (url.empty()) throw ProviderError("Runloop API: create_tunnel for port " + std::to_string(port) + " returned no url", 200);
    return url;
}

json DevboxApi::lifecycle(const std::string &id, const std::string &verb) {
    return api_.expect("POST", "/v1/devboxes/" + url_encode(id) + "/" + verb, nullptr, {200});
}

}  // namespace runloop
