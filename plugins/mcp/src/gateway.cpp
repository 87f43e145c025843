#include "gateway.hpp"

#include <actionhost/abi.h>
#include <algorithm>
#include <future>
#include <actionhost/common/json_write.hpp>

namespace actionhost::mcp {
namespace {

using json = nlohmann::json;

const char *const kVersions[] = {"2024-11-05", "2025-03-26", "2025-06-18"};
constexpr const char *kDefaultVersion = "2025-03-26";
constexpr int kMaxToolPages = 100;

json error_response(const json &id, int code, const std::string &message) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace

Gateway::Gateway(GatewaySettings settings) : settings_(std::move(settings)), set_(std::make_shared<ServerSet>()) {}

Gateway::~Gateway() { stop_all(); }

std::shared_ptr<const Gateway::ServerSet> Gateway::current() const {
    std::lock_guard lock(mu_);
    return set_;
}

bool Gateway::configured() const { return !current()->servers.empty(); }

void Gateway::stop_all() {
    std::lock_guard update_lock(update_mu_);
    std::shared_ptr<const ServerSet> old;
    {
        std::lock_guard lock(mu_);
        old = std::exchange(set_, std::make_shared<ServerSet>());
        routes_.clear();
    }
    for (const auto &s : old->servers) s->stop();
}

std::string Gateway::update(std::vector<StdioServerConfig> configs) {
    std::lock_guard update_lock(update_mu_);
    auto fresh = std::make_shared<ServerSet>();
    for (auto &cfg : configs) {
        StdioServerSettings s{settings_.cwd, settings_.base_env, settings_.version, settings_.log, settings_.on_tools_changed};
        fresh->servers.push_back(std::make_shared<StdioServer>(std::move(cfg), std::move(s)));
    }
    // The old servers go first: a replaced server's state (and any port it holds) is released before its
    // successor starts, as a new FastMCP proxy replaces the old one in OpenHands.
    std::shared_ptr<const ServerSet> old;
    {
        std::lock_guard lock(mu_);
        old = std::exchange(set_, fresh);
        routes_.clear();
    }
    for (const auto &s : old->servers) s->stop();

    std::vector<std::future<common::Status>> starts;
    for (const auto &s : fresh->servers)
        starts.push_back(std::async(std::launch::async, [s, t = settings_.start_timeout] { return s->ensure_started(t); }));
    std::string errors;
    for (size_t i = 0; i < starts.size(); ++i) {
        const common::Status started = starts[i].get();
        if (started) continue;
        const std::string line = "MCP server '" + fresh->servers[i]->name() + "' failed to start: " + started.error().message;
        settings_.log(AH_LOG_ERROR, line);
        errors += (errors.empty() ? "" : "\n") + line;
    }
    if (settings_.on_tools_changed) settings_.on_tools_changed();
    return errors;
}

json Gateway::initialize_result(const json &params) const {
    std::string version = kDefaultVersion;
    if (params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
        const std::string asked = params["protocolVersion"].get<std::string>();
        for (const char *v : kVersions)
            if (asked == v) version = asked;
    }
    return {{"protocolVersion", version},
            {"capabilities", {{"tools", {{"listChanged", true}}}}},
            {"serverInfo", {{"name", "actionhost-mcp"}, {"version", settings_.version}}}};
}

RpcOutcome Gateway::list_tools() {
    auto set = current();
    const bool prefixed = set->servers.size() > 1;
    // Every server at once: a slow one costs its own time only.
    std::vector<std::future<std::pair<json, std::string>>> lists;
    for (const auto &server : set->servers) {
        lists.push_back(std::async(std::launch::async, [this, server]() -> std::pair<json, std::string> {
            if (auto started = server->ensure_started(settings_.start_timeout); !started) return {json::array(), started.error().message};
            json tools = json::array();
            json cursor;
            for (int page = 0; page < kMaxToolPages; ++page) {
                json params = json::object();
                if (!cursor.is_null()) params["cursor"] = cursor;
                RpcOutcome r = server->request("tools/list", params, settings_.call_timeout);
                if (!r.result) return {tools, r.error.value("message", actionhost::common::dump_json(r.error))};
                for (const auto &t : r.result->value("tools", json::array())) tools.push_back(t);
                cursor = r.result->value("nextCursor", json());
                if (!cursor.is_string()) break;
            }
            return {tools, ""};
        }));
    }
    json exposed = json::array();
    std::map<std::string, Route> routes;
    for (size_t i = 0; i < lists.size(); ++i) {
        auto [tools, why] = lists[i].get();
        const auto &server = set->servers[i];
        if (!why.empty()) settings_.log(AH_LOG_WARNING, "tools of MCP server '" + server->name() + "' unavailable: " + why);
        for (auto tool : tools) {
            if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
            const std::string own = tool["name"].get<std::string>();
            const std::string name = prefixed ? server->name() + "_" + own : own;
            if (routes.count(name)) {
                // "a_b"+"c" and "a"+"b_c" meet at "a_b_c": the server listed first keeps the name.
                settings_.log(AH_LOG_WARNING, "tool name '" + name + "' of MCP server '" + server->name() +
                                                  "' is already taken by MCP server '" + routes[name].server->name() +
                                                  "'; it is not offered");
                continue;
            }
            routes[name] = {server, own};
            tool["name"] = name;
            exposed.push_back(std::move(tool));
        }
    }
    {
        std::lock_guard lock(mu_);
        if (set_ == set) routes_ = std::move(routes);
    }
    return {json{{"tools", exposed}}, nullptr};
}

RpcOutcome Gateway::call_tool(const json &params) {
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string())
        return RpcOutcome::failure(-32602, "Invalid params: tools/call needs a string \"name\"");
    const std::string name = params["name"].get<std::string>();
    auto find = [&]() -> std::optional<Route> {
        std::lock_guard lock(mu_);
        auto it = routes_.find(name);
        if (it == routes_.end()) return std::nullopt;
        return it->second;
    };
    std::optional<Route> route = find();
    if (!route) {
        list_tools();  // a client may call without listing first, or the tools changed
        route = find();
    }
    if (!route) return RpcOutcome::failure(-32602, "Unknown tool: " + name);
    if (auto started = route->server->ensure_started(settings_.start_timeout); !started)
        return RpcOutcome::failure(-32603, "MCP server '" + route->server->name() + "' cannot be started: " + started.error().message);
    json forwarded = {{"name", route->tool}, {"arguments", params.value("arguments", json::object())}};
    if (params.contains("_meta")) forwarded["_meta"] = params["_meta"];
    return route->server->request("tools/call", forwarded, settings_.call_timeout);
}

std::optional<json> Gateway::handle(const json &msg) {
    if (!msg.is_object() || msg.value("jsonrpc", json()) != "2.0")
        return error_response(msg.is_object() && msg.contains("id") ? msg["id"] : json(), -32600,
                              "Invalid Request: not a JSON-RPC 2.0 message");
    const bool has_id = msg.contains("id") && !msg["id"].is_null();
    if (!msg.contains("method")) return std::nullopt;  // a response to us: we send no requests
    if (!msg["method"].is_string()) return error_response(has_id ? msg["id"] : json(), -32600, "Invalid Request: \"method\" must be a string");
    if (!has_id) return std::nullopt;  // notifications (initialized, cancelled, ...) need no answer
    const json &id = msg["id"];
    if (!id.is_string() && !id.is_number_integer()) return error_response(json(), -32600, "Invalid Request: \"id\" must be a string or an integer");
    const std::string method = msg["method"].get<std::string>();
    const json params = msg.value("params", json::object());

    RpcOutcome out;
    if (method == "initialize") out = {initialize_result(params), nullptr};
    else if (method == "ping" || method == "logging/setLevel") out = {json::object(), nullptr};
    else if (method == "tools/list") out = list_tools();
    else if (method == "tools/call") out = call_tool(params);
    else if (method == "resources/list") out = {json{{"resources", json::array()}}, nullptr};
    else if (method == "resources/templates/list") out = {json{{"resourceTemplates", json::array()}}, nullptr};
    else if (method == "prompts/list") out = {json{{"prompts", json::array()}}, nullptr};
    else out = RpcOutcome::failure(-32601, "Method not found: " + method);
    if (out.result) return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", *out.result}};
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", out.error}};
}

}  // namespace actionhost::mcp
