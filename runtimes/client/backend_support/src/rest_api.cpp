#include "actionhost/runtime_support/rest_api.hpp"

#include "actionhost/runtime_support/host_http.hpp"
#include "actionhost/runtime_support/retry_after.hpp"
#include "actionhost/runtime_support/tls_failure.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <actionhost/common/json_write.hpp>

namespace actionhost::runtime_support {

using nlohmann::json;

json RestReply::json() const {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

RestApi::RestApi(const ah_runtime_host_t *host, std::string provider, std::string base_url, std::vector<std::string> headers,
                 RetryPolicy retry)
    : host_(host), provider_(std::move(provider)), base_url_(std::move(base_url)), headers_(std::move(headers)), retry_(std::move(retry)) {}

RestReply RestApi::call(const std::string &method, const std::string &path, const json &body, double timeout_s) const {
    if (body.is_null()) return call_raw(method, path, "", "", timeout_s);
    return call_raw(method, path, actionhost::common::dump_json(body), "application/json", timeout_s);
}

RestReply RestApi::call_raw(const std::string &method, const std::string &path, const std::string &body,
                            const std::string &content_type, double timeout_s) const {
    std::string url = base_url_ + path;
    thread_local std::mt19937 rng{std::random_device{}()};
    std::uniform_real_distribution<double> jitter(0.75, 1.0);
    for (int attempt = 0;; ++attempt) {
        std::vector<std::string> lines = headers_;
        lines.push_back("Accept: application/json");
        if (!content_type.empty()) lines.push_back("Content-Type: " + content_type);
        if (!retry_count_header_.empty()) lines.push_back(retry_count_header_ + ": " + std::to_string(attempt));
        const HostHttpReply r = host_http_request(host_, method, url, lines, body, timeout_s);
        const ah_status_t st = r.transport;
        RestReply reply;
        reply.status = r.status;
        reply.body = r.body;
        const std::string &error = r.error;

        bool retriable = st != AH_OK ? retry_.transport_errors && !is_tls_failure(error)
                                     : (retry_.statuses.count(reply.status) || (retry_.server_errors && reply.status >= 500));
        if (st == AH_OK && retry_.should_retry_header && reply.status >= 300) {
            if (auto h = r.headers.find("x-should-retry"); h != r.headers.end() && (h->second == "true" || h->second == "false"))
                retriable = h->second == "true";
        }
        if (!retriable || attempt >= retry_.max_retries) {
            if (st != AH_OK)
                throw ProviderError("cannot reach the " + provider_ + " at " + url + ": " + error, 0);
            return reply;
        }
        double wait = std::min(retry_.max_s, retry_.initial_s * static_cast<double>(1 << std::min(attempt, 16))) * jitter(rng);
        if (auto asked = retry_after_seconds(r.headers); asked && *asked <= retry_.max_s) wait = *asked;
        host_->log(host_, AH_LOG_WARNING,
                   (provider_ + ": " + method + " " + path + " → " + (st != AH_OK ? error : std::to_string(reply.status)) +
                    "; retrying in " + std::to_string(wait).substr(0, 4) + " s")
                       .c_str());
        std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
}

json RestApi::expect(const std::string &method, const std::string &path, const json &body, std::initializer_list<int> ok,
                     double timeout_s) const {
    RestReply r = call(method, path, body, timeout_s);
    if (std::find(ok.begin(), ok.end(), r.status) == ok.end()) throw error_of(method, path, r);
    return r.json();
}

ProviderError RestApi::error_of(const std::string &method, const std::string &path, const RestReply &reply) const {
    std::string msg = error_message_of(reply.body);
    return ProviderError(provider_ + ": " + method + " " + path + " → " + std::to_string(reply.status) + (msg.empty() ? "" : ": " + msg),
                         reply.status);
}

std::string error_message_of(const std::string &body) {
    json j = json::parse(body, nullptr, false);
    if (j.is_object()) {
        for (const char *k : {"message", "detail", "error"}) {
            if (!j.contains(k)) continue;
            const json &v = j[k];
            if (v.is_string()) return v.get<std::string>();
            if (v.is_array() && !v.empty() && v[0].is_string()) return v[0].get<std::string>();  // NestJS validation
            return actionhost::common::dump_json(v);
        }
    }
    return body.size() > 300 ? body.substr(0, 300) + "..." : body;
}

std::string check_base_url(const std::string &what, const std::string &url) {
    std::string u = url;
    while (!u.empty() && u.back() == '/') u.pop_back();
    size_t scheme = u.rfind("http://", 0) == 0 ? 7 : u.rfind("https://", 0) == 0 ? 8 : 0;
    if (scheme == 0) throw std::invalid_argument(what + " '" + url + "' is not an http:// or https:// URL");
    std::string authority = u.substr(scheme, u.find('/', scheme) == std::string::npos ? std::string::npos : u.find('/', scheme) - scheme);
    if (authority.empty() || authority.front() == ':') throw std::invalid_argument(what + " '" + url + "' has no host");
    if (authority.find_first_of(" \t@") != std::string::npos) throw std::invalid_argument(what + " '" + url + "' has a malformed host");
    if (auto colon = authority.rfind(':'); colon != std::string::npos && authority.find(']') == std::string::npos) {
        std::string port = authority.substr(colon + 1);
        bool digits = !port.empty() && port.size() <= 5 && std::all_of(port.begin(), port.end(), ::isdigit);
        if (!digits || std::stoi(port) == 0 || std::stoi(port) > 65535)
            throw std::invalid_argument(what + " '" + url + "' has a bad port");
    }
    return u;
}

}  // namespace actionhost::runtime_support
