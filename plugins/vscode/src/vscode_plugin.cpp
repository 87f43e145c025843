// The vscode plugin: a VS Code server for the workspace, reached with the token that
// GET /vscode/connection_token answers, as OpenHands' VSCodePlugin. It provides no actions.
#include <actionhost/ext/http_routes.h>
#include <actionhost/plugin.hpp>

#include <nlohmann/json.hpp>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/observation.hpp>

#include "vscode_server.hpp"

namespace actionhost::vscode {
namespace {

constexpr const char *kTokenPath = "/vscode/connection_token";
// Additive: the token plus where to use it (the port is otherwise only known to whoever set VSCODE_PORT).
constexpr const char *kInfoPath = "/vscode/connection_info";

class VscodePlugin : public sdk::Plugin {
  public:
    explicit VscodePlugin(sdk::Host host)
        : sdk::Plugin(host),
          server_(ServerSettings{
              host.info().username ? host.info().username : "",
              host.info().working_dir ? host.info().working_dir : "",
              [raw = host.raw()](const char *key) -> std::optional<std::string> {
                  const char *v = raw->config_get(raw, key);
                  if (v == nullptr) return std::nullopt;
                  return std::string(v);
              },
              [raw = host.raw()](int level, const std::string &msg) { raw->log(raw, level, msg.c_str()); }}) {
        routes_.struct_size = sizeof routes_;
        routes_.paths = kPaths;
        routes_.handle = &VscodePlugin::handle_route;
    }

    ah_status_t init() override {
        server_.start();
        return AH_OK;
    }

    ah_status_t execute(sdk::Call &call) override {
        call.reply(common::dump_json(common::error_observation(
            "The vscode plugin provides no actions (action '" + std::string(call.action()) + "')")));
        return AH_OK;
    }

    void shutdown() override { server_.stop(); }

    const void *extension(const char *id) const override {
        if (id != nullptr && std::string_view(id) == AH_EXT_HTTP_ROUTES) return &routes_;
        return nullptr;
    }

  private:
    static ah_status_t handle_route(ah_plugin_t *plugin, const ah_http_request_t *request, ah_http_reply_t *reply) {
        return sdk::with_plugin<VscodePlugin>(plugin, [&](VscodePlugin &self) { return self.answer(request, reply); });
    }

    ah_status_t answer(const ah_http_request_t *request, ah_http_reply_t *reply) {
        auto send = [&](int status, const std::string &body) {
            reply->send(reply, status, "application/json", ah_bytes_t{body.data(), body.size()});
        };
        std::string_view method = request->method ? request->method : "";
        std::string_view path = request->path ? request->path : "";
        if (method != "GET") {
            send(405, R"({"detail":"Method Not Allowed"})");
            return AH_OK;
        }
        ConnectionInfo info = server_.connection();
        nlohmann::json token = info.token ? nlohmann::json(*info.token) : nlohmann::json(nullptr);
        if (path == kInfoPath) {
            nlohmann::json body = {{"token", token},
                                   {"port", info.token ? nlohmann::json(info.port) : nlohmann::json(nullptr)},
                                   {"server", info.server.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.server)},
                                   {"reason", info.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.reason)}};
            send(200, common::dump_json(body));
            return AH_OK;
        }
        send(200, common::dump_json(nlohmann::json{{"token", token}}));
        return AH_OK;
    }

    static constexpr const char *kPaths[] = {kTokenPath, kInfoPath, nullptr};
    VscodeServer server_;
    ah_ext_http_routes_t routes_{};
};

}  // namespace
}  // namespace actionhost::vscode

ACTIONHOST_PLUGIN(actionhost::vscode::VscodePlugin, "vscode", "0.1.0")
