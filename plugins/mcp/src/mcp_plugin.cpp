// The mcp plugin: OpenHands' MCP proxy (docs/api.md, docs/compat.md). POST /update_mcp_server replaces the
// stdio MCP servers; their tools are served as one MCP endpoint over SSE (/mcp/sse, also /sse, as
// OpenHands mounts its FastMCP app at /mcp and /) and Streamable HTTP (/mcp). Nothing answers there
// while no server is configured. The host checks X-Session-API-Key before any of these routes.
#include <actionhost/ext/http_stream_routes.h>
#include <actionhost/plugin.hpp>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "gateway.hpp"
#include "http_transports.hpp"
#include "server_config.hpp"
#include "sessions.hpp"

namespace actionhost::mcp {
namespace {

constexpr const char *kVersion = "0.1.0";

std::chrono::milliseconds seconds_setting(const sdk::Host &host, const char *key, int def) {
    auto v = host.config(key);
    if (!v || v->empty()) return std::chrono::seconds(def);
    char *end = nullptr;
    const double s = std::strtod(v->c_str(), &end);
    if (end == nullptr || *end != '\0' || !(s > 0) || s > 86400) return std::chrono::seconds(def);
    return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

// What a stdio server inherits of the host's environment: the mcp SDK's get_default_environment() set,
// so the session key and the rest of the host's environment stay with the host.
std::vector<std::string> default_environment() {
    std::vector<std::string> env;
    for (const char *k : {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"})
        if (const char *v = std::getenv(k); v != nullptr && std::string_view(v).rfind("()", 0) != 0)
            env.push_back(std::string(k) + "=" + v);
    return env;
}

class McpPlugin : public sdk::Plugin {
  public:
    explicit McpPlugin(sdk::Host host)
        : sdk::Plugin(host),
          gateway_(GatewaySettings{host.info().working_dir ? host.info().working_dir : "/",
                                   default_environment(),
                                   kVersion,
                                   seconds_setting(host, "ACTIONHOST_MCP_START_TIMEOUT", 30),
                                   seconds_setting(host, "ACTIONHOST_MCP_CALL_TIMEOUT", 300),
                                   [raw = host.raw()](int level, const std::string &msg) { raw->log(raw, level, msg.c_str()); },
                                   [this] { sessions_.broadcast(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"); }}),
          transports_(gateway_, sessions_, stopping_) {
        routes_.struct_size = sizeof routes_;
        routes_.paths = kPaths;
        routes_.handle = &McpPlugin::handle_route;
    }

    ~McpPlugin() override { shutdown(); }

    ah_status_t execute(sdk::Call &call) override {
        call.reply(common::dump_json(common::error_observation(
            "The mcp plugin provides no actions (action '" + std::string(call.action()) + "')")));
        return AH_OK;
    }

    void shutdown() override {
        if (stopping_.exchange(true)) return;
        sessions_.close_all();  // open streams return
        gateway_.stop_all();    // children stop; waiting calls fail at once
    }

    const void *extension(const char *id) const override {
        if (id != nullptr && std::string_view(id) == AH_EXT_HTTP_STREAM_ROUTES) return &routes_;
        return nullptr;
    }

  private:
    static ah_status_t handle_route(ah_plugin_t *plugin, const ah_http_stream_request_t *request,
                                    ah_http_stream_reply_t *reply) {
        return sdk::with_plugin<McpPlugin>(plugin, [&](McpPlugin &self) {
            Exchange ex(request, reply);
            self.answer(ex);
            return AH_OK;
        });
    }

    void answer(Exchange &ex) {
        const std::string &path = ex.path();
        if (stopping_) return ex.send_json(503, {{"detail", "The runtime is shutting down"}});
        if (path == "/update_mcp_server") return update(ex);
        // As in OpenHands, nothing is mounted while no server is configured.
        if (!gateway_.configured()) return ex.send_json(404, {{"detail", "Not Found"}});
        if (path == "/mcp/sse") return transports_.sse_stream(ex, "/mcp/messages/");
        if (path == "/sse") return transports_.sse_stream(ex, "/messages/");
        if (path == "/mcp") return transports_.streamable(ex);
        return transports_.sse_message(ex);  // /mcp/messages/ and its aliases
    }

    void update(Exchange &ex) {
        if (ex.method() != "POST") return ex.send_json(405, {{"detail", "Method Not Allowed"}});
        ConfigParse parsed = parse_update_body(ex.body());
        if (!parsed.servers) {
            nlohmann::json body = {{"detail", parsed.detail}};
            if (!parsed.errors.empty()) body["errors"] = parsed.errors;
            return ex.send_json(parsed.status, body);
        }
        std::string names;
        for (const auto &s : *parsed.servers) names += (names.empty() ? "" : ", ") + s.name;
        host().log(AH_LOG_INFO, "updating MCP servers: [" + names + "]");
        const std::string errors = gateway_.update(std::move(*parsed.servers));
        ex.send_json(200, {{"detail", "MCP server updated successfully"}, {"router_error_log", errors}});
    }

    static constexpr const char *kPaths[] = {"/update_mcp_server", "/mcp/sse", "/mcp/messages/", "/mcp/messages",
                                             "/sse",               "/messages/", "/messages",    "/mcp",
                                             nullptr};
    std::atomic<bool> stopping_{false};
    SessionRegistry sessions_;
    Gateway gateway_;
    Transports transports_;
    ah_ext_http_stream_routes_t routes_{};
};

}  // namespace
}  // namespace actionhost::mcp

ACTIONHOST_PLUGIN(actionhost::mcp::McpPlugin, "mcp", "0.1.0")
