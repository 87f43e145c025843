#include "sandbox_api.hpp"

#include <actionhost/runtime_support/url_encode.hpp>
#include <actionhost/common/json_write.hpp>

namespace daytona {

using actionhost::runtime_support::RetryPolicy;
using nlohmann::json;
using actionhost::runtime_support::url_encode;

namespace {

// The SDK itself does not retry; a lost connection is retried twice, briefly, so that one network
// hiccup does not fail a provisioning that is otherwise fine.
RetryPolicy daytona_retries() {
    RetryPolicy p;
    p.max_retries = 2;
    p.transport_errors = true;
    p.initial_s = 0.5;
    p.max_s = 2;
    return p;
}

}  // namespace

SandboxApi::SandboxApi(const ah_runtime_host_t *host, const std::string &api_url, const std::string &api_key)
    : api_(host, "Daytona API", api_url, {"Authorization: Bearer " + api_key, "X-Daytona-Source: actionhost"}, daytona_retries()) {}

json SandboxApi::create(const json &body) { return api_.expect("POST", "/sandbox", body, {200, 201}, 120); }

json SandboxApi::get(const std::string &id) { return api_.expect("GET", "/sandbox/" + url_encode(id), nullptr, {200}); }
actionhost::runtime_support::RestReply SandboxApi::get_reply(const std::string &id) { return api_.call("GET", "/sandbox/" + url_encode(id)); }

json SandboxApi::list_by_labels(const json &labels) {
    json list = api_.expect("GET", "/sandbox?labels=" + url_encode(actionhost::common::dump_json(labels)), nullptr, {200});
    return list.is_array() ? list : json::array();
}

void SandboxApi::start(const std::string &id) { api_.expect("POST", "/sandbox/" + url_encode(id) + "/start", nullptr, {200, 201}, 90); }
void SandboxApi::stop(const std::string &id) { api_.expect("POST", "/sandbox/" + url_encode(id) + "/stop", nullptr, {200, 201}, 90); }
void SandboxApi::remove(const std::string &id) {
    api_.expect("DELETE", "/sandbox/" + url_encode(id) + "?force=true", nullptr, {200, 204}, 90);
}

json SandboxApi::preview_url(const std::string &id, int port) {
    return api_.expect("GET", "/sandbox/" + url_encode(id) + "/ports/" + std::to_string(port) + "/preview-url", nullptr, {200});
}

std::string SandboxApi::run_in_session(const std::string &id, const std::string &session, const std::string &command) {
    std::string base = "/toolbox/" + url_encode(id) + "/toolbox/process/session";
    auto created = api_.call("POST", base, json{{"sessionId", session}});
    if (created.status != 200 && created.status != 201 && created.status != 409) throw api_.error_of("POST", base, created);
    // `async` is the SDK 0.24 name of `runAsync`; both are sent so either server generation runs it async.
    json r = api_.expect("POST", base + "/" + url_encode(session) + "/exec", json{{"command", command}, {"runAsync", true}, {"async", true}},
                         {200, 202});
    return r.is_object() ? r.value("cmdId", "") : "";
}

std::optional<int> SandboxApi::command_exit_code(const std::string &id, const std::string &session, const std::string &cmd_id) {
    json c = api_.expect("GET", "/toolbox/" + url_encode(id) + "/toolbox/process/session/" + url_encode(session) + "/command/" + url_encode(cmd_id),
                         nullptr, {200});
    if (!c.is_object() || !c.contains("exitCode") || !c["exitCode"].is_number_integer()) return std::nullopt;
    return c["exitCode"].get<int>();
}

std::string SandboxApi::command_logs(const std::string &id, const std::string &session, const std::string &cmd_id) {
    auto r = api_.call("GET", "/toolbox/" + url_encode(id) + "/toolbox/process/session/" + url_encode(session) + "/command/" +
                                  url_encode(cmd_id) + "/logs");
    return r.status == 200 ? r.body : "";
}

}  // namespace daytona
