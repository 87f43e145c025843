// The API's machine-readable description (OpenAPI 3.1), as OpenHands' FastAPI server offers one at
// /openapi.json, and a readable page of it at /docs. The actions are described from the same
// declarations the host validates with (the host's own and every installed plugin's manifest), and
// plugin routes from the manifests, so the description cannot drift from what the host accepts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include <actionhost/modules/registry.hpp>

namespace actionhost::host {

nlohmann::json openapi_document(const modules::ModuleRegistry &registry, const std::string &version);

// The /docs page: every operation and every action with its arguments, as HTML (no script, no CDN).
std::string openapi_html(const nlohmann::json &document);

}  // namespace actionhost::host
