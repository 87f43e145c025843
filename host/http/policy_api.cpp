#include "http/policy_api.hpp"

#include <actionhost/common/json_io.hpp>

#include "actions/policy_stage.hpp"
#include "http/body.hpp"

namespace actionhost::host {
namespace {

constexpr std::string_view kPrefix = "/actions/";
constexpr std::string_view kConfirm = "/confirm";

}  // namespace

bool serve_policy_api(ApiContext &ctx, Request &req, Response &resp, const std::string &path) {
    if (path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
    const std::string rest = path.substr(kPrefix.size());
    const bool pending = rest == "pending";
    const bool confirm = rest.size() > kConfirm.size() && rest.compare(rest.size() - kConfirm.size(), kConfirm.size(), kConfirm) == 0 &&
                         rest.find('/') == rest.size() - kConfirm.size();
    if (!pending && !confirm) return false;
    if (req.method() != (pending ? "GET" : "POST")) {
        send_detail(resp, 405, "Method Not Allowed");
        return true;
    }
    if (pending) {  // without a policy nothing ever waits: an empty list, not an error
        send_json(resp, 200, {{"pending", ctx.policy ? ctx.policy->confirmations().pending_json() : nlohmann::json::array()}});
        return true;
    }
    const std::string id = rest.substr(0, rest.size() - kConfirm.size());
    const BodyText read = read_body(req, 4096);
    if (!read.text) {
        send_detail(resp, read.status, read.detail);
        return true;
    }
    const auto body = nlohmann::json::parse(*read.text, nullptr, false);
    if (!body.is_object() || !body.contains("confirm") || !body["confirm"].is_boolean()) {
        send_detail(resp, 422, "body must be {\"confirm\": true} or {\"confirm\": false}");
        return true;
    }
    const bool yes = body["confirm"].get<bool>();
    if (ctx.policy == nullptr || !ctx.policy->confirmations().answer(id, yes)) {
        send_detail(resp, 404, "no action " + id + " waits for confirmation (unknown, already answered, or timed out)");
        return true;
    }
    send_json(resp, 200, {{"id", id}, {"confirmation_state", yes ? "confirmed" : "rejected"}});
    return true;
}

}  // namespace actionhost::host
