// Serving an HTTP request on a plugin's route: through "actionhost.http_stream_routes/1" (headers both
// ways, streamed bodies) when the plugin offers it, else through "actionhost.http_routes/1".
#pragma once

#include "http/api.hpp"
#include "modules/plugin_module.hpp"

namespace actionhost::host {

// `path` is the request's decoded path, `query` its raw query string.
void serve_plugin_route(ApiContext &ctx, PluginModule &owner, Request &req, Response &resp, const std::string &path,
                        const std::string &query);

}  // namespace actionhost::host
