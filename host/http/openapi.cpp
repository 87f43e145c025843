#include "http/openapi.hpp"

#include <actionhost/common/text.hpp>
#include <set>

#include "actions/envelope.hpp"
#include "actions/file_actions.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::host {
namespace {

using nlohmann::json;

json schema_ref(const std::string &name) { return {{"$ref", "#/components/schemas/" + name}}; }

json json_body(const json &schema) { return {{"content", {{"application/json", {{"schema", schema}}}}}}; }

json response(const std::string &description, const json &schema = nullptr, const std::string &type = "application/json") {
    json r = {{"description", description}};
    if (!schema.is_null()) r["content"] = {{type, {{"schema", schema}}}};
    return r;
}

json query(const std::string &name, const json &schema, bool required, const std::string &description) {
    return {{"name", name}, {"in", "query"}, {"required", required}, {"schema", schema}, {"description", description}};
}

// The errors every keyed operation may answer.
void add_common_errors(json &responses, bool keyed) {
    if (keyed) responses["403"] = response("Wrong or missing X-Session-API-Key", schema_ref("Detail"));
    responses["400"] = response("Malformed request framing (conflicting lengths, bad chunking); the connection is closed", schema_ref("Detail"));
}

// One action's request: {"action": NAME, "args": {...declared...}, "timeout": seconds}.
json action_schema(const modules::ActionSpec &spec, const std::string &provider) {
    json args = spec.json_schema();
    // Every action also carries the event model's shared fields.
    for (const auto &a : shared_action_args()) {
        json p = json::object();
        if (!a.types.empty()) p["type"] = a.types.size() == 1 ? json(a.types.front()) : json(a.types);
        if (!a.default_value.is_discarded()) p["default"] = a.default_value;
        if (!args["properties"].contains(a.name)) args["properties"][a.name] = p;
    }
    json s = {{"type", "object"},
              {"properties",
               {{"action", {{"const", spec.name}}},
                {"args", args},
                {"timeout", {{"type", {"number", "null"}}, {"exclusiveMinimum", 0}, {"description", "hard timeout in seconds"}}}}},
              {"required", json::array({"action"})},
              {"x-provider", provider}};
    if (!spec.description.empty()) s["description"] = spec.description;
    if (!spec.interrupt_when.empty()) s["x-interrupt-when"] = spec.interrupt_when;
    if (!spec.when.empty()) {
        s["x-when"] = spec.when;
        // Taken only with these argument values: the schema says so too.
        for (const auto &[arg, value] : spec.when.items()) {
            s["properties"]["args"]["properties"][arg]["const"] = value;
            s["properties"]["args"]["required"].push_back(arg);
        }
    }
    return s;
}

std::string schema_name(const modules::ActionSpec &spec, const std::string &provider) {
    std::string name = "Action_" + spec.name;
    if (!spec.when.empty()) name += "_" + provider;
    return name;
}

}  // namespace

json openapi_document(const modules::ModuleRegistry &registry, const std::string &version) {
    json schemas = {
        {"Detail", {{"type", "object"}, {"properties", {{"detail", {{"type", "string"}}}}}, {"required", {"detail"}}}},
        {"Observation",
         {{"type", "object"},
          {"description", "An OpenHands observation: its type, content and extras (e.g. exit code, working dir)"},
          {"properties", {{"observation", {{"type", "string"}}}, {"content", {{"type", "string"}}}, {"extras", {{"type", "object"}}}}},
          {"required", {"observation", "content"}}}},
        // The data of /stream's "output" events (SSE: the response is text; this names its events' JSON).
        {"StreamOutput",
         {{"type", "object"},
          {"description", "data of an `event: output` of GET /stream"},
          {"properties",
           {{"chunk", {{"type", "string"}, {"description", "output as the action produced it"}}},
            {"stream",
             {{"enum", {"stdout", "stderr"}},
              {"description", "present only when the plugin told stdout and stderr apart (run with separate_stderr); "
                              "absent: a terminal's merged output"}}}}},
          {"required", {"chunk"}}}},
        {"InvalidRequest",
         {{"type", "object"},
          {"properties", {{"detail", {{"const", "Invalid request parameters"}}}, {"errors", {{"type", "string"}}}}},
          {"required", {"detail"}}}},
    };
    json actions = json::array();
    for (const auto &spec : host_action_specs()) {
        schemas[schema_name(spec, "host")] = action_schema(spec, "host");
        actions.push_back(schema_ref(schema_name(spec, "host")));
    }
    for (const auto &m : registry.modules()) {
        for (const auto &spec : m.actions) {
            const std::string name = schema_name(spec, m.name);
            if (schemas.contains(name)) continue;  // the first module on the search path serves it
            schemas[name] = action_schema(spec, m.name);
            actions.push_back(schema_ref(name));
        }
    }
    // anyOf, not oneOf: an action an editor takes under a condition also fits the host's own declaration.
    schemas["Action"] = {{"anyOf", actions}, {"description", "Any action an installed provider declares"}};
    schemas["ExecuteActionRequest"] = {
        {"type", "object"},
        {"properties",
         {{"action", schema_ref("Action")},
          {"session", {{"type", {"string", "null"}}, {"pattern", "^[A-Za-z0-9_.-]{0,64}$"}, {"description", "named session (additive)"}}}}},
        {"required", {"action"}}};

    json paths = json::object();
    // An operation, its answers, and where it goes; every operation wants the key but /alive and
    // /server_info.
    auto op = [&](const std::string &path, const std::string &method, const std::string &summary, bool keyed = true) -> json & {
        json &o = paths[path][method];
        o["summary"] = summary;
        o["responses"] = json::object();
        add_common_errors(o["responses"], keyed);
        if (!keyed) o["security"] = json::array();
        return o;
    };
    auto object_with = [](std::initializer_list<const char *> required) {
        json o = {{"type", "object"}, {"required", json::array()}};
        for (const char *r : required) o["required"].push_back(r);
        return o;
    };
    {
        json &o = op("/alive", "get", "Liveness", false);
        o["responses"]["200"] = response("Serving", {{"type", "object"}, {"properties", {{"status", {{"const", "ok"}}}}}});
    }
    {
        json &o = op("/server_info", "get", "Uptime, idle time and resources", false);
        json figures = object_with({"uptime", "idle_time", "resources"});
        json need = object_with({"plugin", "need", "description", "package", "looked_for"});
        for (const char *k : {"plugin", "need", "description", "package", "looked_for"}) need["properties"][k] = {{"type", "string"}};
        figures["properties"]["missing_needs"] = {
            {"type", "array"}, {"items", need},
            {"description", "what installed plugins need from the image and it lacks (manifest \"needs\"; ours)"}};
        o["responses"]["200"] = response("The host's figures", figures);
    }
    {
        json &o = op("/execute_action", "post", "Runs one action and answers its observation");
        o["parameters"] = json::array({{{"name", "X-Request-ID"}, {"in", "header"}, {"required", false},
                                        {"schema", {{"type", "string"}, {"maxLength", 256}}},
                                        {"description", "idempotency key: a retry replays the first answer"}}});
        o["requestBody"] = json_body(schema_ref("ExecuteActionRequest"));
        json &r = o["responses"];
        r["200"] = response("The observation (operational failures included)", schema_ref("Observation"));
        r["409"] = response("X-Request-ID reused for another request", schema_ref("Detail"));
        r["413"] = response("Body over ACTIONHOST_MAX_BODY_BYTES", schema_ref("Detail"));
        r["422"] = response("Not JSON, or no \"action\" object", schema_ref("InvalidRequest"));
        r["500"] = response("An action no provider declares, or arguments its declaration refuses", schema_ref("Detail"));
        r["503"] = response("The host is stopping", schema_ref("Detail"));
    }
    {
        json &o = op("/list_files", "post", "Directory listing: directories first with '/', then files");
        json body = {{"type", "object"}};
        body["properties"]["path"]["type"] = {"string", "null"};
        body["properties"]["detail"] = {{"type", "boolean"}, {"default", false}, {"description", "additive: entries as objects"}};
        o["requestBody"] = json_body(body);
        json entry = object_with({"name", "type", "size", "mode", "mtime"});
        entry["properties"]["type"]["enum"] = {"dir", "file", "symlink", "other"};
        o["responses"]["200"] = response(
            "Names, or with detail entries {name, type, size, mode, mtime}",
            {{"type", "array"}, {"items", {{"oneOf", json::array({{{"type", "string"}}, entry})}}}});
    }
    {
        json &o = op("/upload_file", "post", "Upload one file, or a zip unpacked with recursive=true");
        o["parameters"] = json::array({query("destination", {{"type", "string"}}, true, "absolute directory"),
                                       query("recursive", {{"type", "boolean"}, {"default", false}}, false, "unpack a zip")});
        json form = object_with({"file"});
        form["properties"]["file"] = {{"type", "string"}, {"contentMediaType", "application/octet-stream"}};
        o["requestBody"]["content"]["multipart/form-data"]["schema"] = form;
        o["responses"]["200"] = response("Placed", object_with({"filename", "destination", "recursive"}));
        o["responses"]["413"] = response("Over ACTIONHOST_MAX_UPLOAD_BYTES", schema_ref("Detail"));
    }
    {
        json &o = op("/download_files", "get", "A file or directory as a zip");
        o["parameters"] = json::array({query("path", {{"type", "string"}}, true, "absolute path")});
        o["responses"]["200"] = response("The zip", {{"type", "string"}, {"contentMediaType", "application/zip"}}, "application/zip");
    }
    {
        json &o = op("/stream", "get", "Live output of a session's actions (Server-Sent Events; additive)");
        o["parameters"] = json::array({query("session", {{"type", "string"}}, false, "named session"),
                                       query("once", {{"type", "string"}, {"enum", {"0", "1"}}}, false, "end after the next action_end")});
        o["responses"]["200"] = response("event: action_start | output | action_end | dropped", {{"type", "string"}}, "text/event-stream");
        o["responses"]["200"]["x-event-data"] = {{"output", schema_ref("StreamOutput")}};
    }
    {
        json &o = op("/metrics", "get", "Counters and figures in the Prometheus text format (additive; docs/operations.md)");
        o["responses"]["200"] = response("The exposition (version 0.0.4)", {{"type", "string"}}, "text/plain");
    }
    {
        json &o = op("/logs", "get", "The host's recent log lines, numbered; a long poll with wait (additive)");
        o["parameters"] = json::array({query("since", {{"type", "integer"}, {"minimum", 0}}, false, "first line wanted (an earlier answer's next)"),
                                       query("wait", {{"type", "integer"}, {"minimum", 0}, {"maximum", 30}}, false, "seconds to wait for a line")});
        json page = object_with({"lines", "next", "dropped"});
        page["properties"]["lines"] = {{"type", "array"}, {"items", {{"type", "string"}}}};
        page["properties"]["next"] = {{"type", "integer"}};
        page["properties"]["dropped"] = {{"type", "integer"}};
        o["responses"]["200"] = response("Lines from since", page);
        o["responses"]["422"] = response("since or wait is not a number in range", schema_ref("InvalidRequest"));
    }
    {
        json &o = op("/actions/pending", "get", "Actions waiting for the client's confirmation (policy stage; additive)");
        json item = object_with({"id", "session", "action", "risk", "reason"});
        o["responses"]["200"] = response("The waiting actions, oldest first",
                                         {{"type", "object"}, {"properties", {{"pending", {{"type", "array"}, {"items", item}}}}}});
    }
    {
        json &o = op("/actions/{id}/confirm", "post", "Confirms or rejects a waiting action (policy stage; additive)");
        o["parameters"] = json::array({{{"name", "id"}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}}});
        json body = object_with({"confirm"});
        body["properties"]["confirm"] = {{"type", "boolean"}};
        o["requestBody"] = json_body(body);
        o["responses"]["200"] = response("Answered: the action runs, or answers user_rejected",
                                         object_with({"id", "confirmation_state"}));
        o["responses"]["404"] = response("No such action waits", {{"type", "object"}});
    }
    {
        // A WebSocket: OpenAPI describes the upgrade request and its refusals; the frames are in docs/api.md.
        json &o = op("/terminal", "get", "An interactive terminal (WebSocket upgrade; frames: docs/api.md, Terminals)");
        o["parameters"] = json::array({query("name", {{"type", "string"}, {"pattern", "^[A-Za-z0-9._-]{1,64}$"}}, false, "terminal name"),
                                       query("mode", {{"type", "string"}, {"enum", {"any", "create", "attach"}}}, false, "join, start or both"),
                                       query("rows", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}, false, "rows"),
                                       query("cols", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}, false, "columns")});
        o["responses"]["101"] = {{"description", "Switching Protocols: the WebSocket"}};
        for (const char *code : {"409", "426", "429"}) o["responses"][code] = response("Refused before the upgrade", {{"type", "object"}});
    }
    // The web view (its paths take the key or the view's cookie).
    op("/ui", "get", "The web view (the login form without the key or cookie)")["responses"]["200"] = response("HTML", {{"type", "string"}}, "text/html");
    op("/ui/login", "post", "Exchanges the key (form field key) for the web view's cookie", false)["responses"]["303"] = {{"description", "To /ui, with Set-Cookie"}};
    op("/ui/terminals", "get", "The named terminals")["responses"]["200"] = response("[{name, pid, clients, age_s}]", {{"type", "array"}});
    op("/ui/terminal", "get", "GET /terminal for the web view's page (Origin must be the host's)")["responses"]["101"] = {{"description", "Switching Protocols"}};
    op("/ui/files", "get", "A directory of the workspace")["responses"]["200"] = response("{path, entries}", {{"type", "object"}});
    op("/ui/download", "get", "A file as an attachment (a directory as a zip)")["responses"]["200"] = response("The file", {{"type", "string"}}, "application/octet-stream");
    {
        json &o = op("/ui/screenshot", "get", "The newest PNG in the image directories plugins declare (manifest provides.images); X-Image-Title names the feed");
        o["responses"]["200"] = response("PNG", {{"type", "string"}}, "image/png");
        o["responses"]["204"] = {{"description", "No image yet"}};
    }
    for (const char *asset : {"app.js", "login.js", "xterm.js", "addon-fit.js", "xterm.css"})
        op(std::string("/ui/assets/") + asset, "get", "The web view's script or style (no secret: served without the key)", false)["responses"]["200"] =
            response("The file", {{"type", "string"}}, std::string(asset).ends_with(".css") ? "text/css" : "text/javascript");
    op("/openapi.json", "get", "This description")["responses"]["200"] = response("OpenAPI 3.1", {{"type", "object"}});
    op("/docs", "get", "This description as a page")["responses"]["200"] = response("HTML", {{"type", "string"}}, "text/html");
    for (const auto &m : registry.modules()) {
        for (const auto &route : m.http_routes) {
            if (paths.contains(route)) continue;
            for (const char *method : {"get", "post"}) {
                json &o = op(route, method, "Answered by the " + m.name + " plugin");
                o["x-plugin"] = m.name;
                o["responses"]["200"] = response(m.route_fallbacks.count(route) ? "The plugin's answer; while it is not loaded: " +
                                                                                      actionhost::common::dump_json(m.route_fallbacks.at(route).at("body"))
                                                                                : "The plugin's answer");
            }
        }
    }
    json doc = {{"openapi", "3.1.0"}};
    doc["info"] = {{"title", "actionhost"}, {"version", version}, {"description", "The OpenHands action-execution protocol, served by actionhost"}};
    doc["components"]["schemas"] = schemas;
    doc["components"]["securitySchemes"]["SessionApiKey"] = {{"type", "apiKey"}, {"in", "header"}, {"name", "X-Session-API-Key"}};
    doc["security"] = json::array({{{"SessionApiKey", json::array()}}});
    doc["paths"] = paths;
    return doc;
}

std::string openapi_html(const json &doc) {
    auto esc = [](const std::string &s) { return common::html_escape(s); };
    std::string h = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>actionhost API</title>"
                    "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}code{background:#eee}"
                    "td,th{border-bottom:1px solid #ddd;padding:.2em .6em;text-align:left}</style></head><body>"
                    "<h1>actionhost API " + esc(doc["info"]["version"].get<std::string>()) + "</h1>"
                    "<p>Machine-readable: <a href=\"openapi.json\">openapi.json</a> (OpenAPI 3.1).</p><h2>Operations</h2><table>";
    for (const auto &[path, item] : doc["paths"].items())
        for (const auto &[method, operation] : item.items())
            h += "<tr><td><code>" + esc(method) + " " + esc(path) + "</code></td><td>" + esc(operation.value("summary", "")) + "</td></tr>";
    h += "</table><h2>Actions</h2>";
    for (const auto &[name, schema] : doc["components"]["schemas"].items()) {
        if (name.rfind("Action_", 0) != 0) continue;
        h += "<h3><code>" + esc(schema["properties"]["action"]["const"].get<std::string>()) + "</code> <small>(" +
             esc(schema.value("x-provider", "")) + (schema.contains("x-when") ? ", when " + esc(actionhost::common::dump_json(schema["x-when"])) : "") +
             ")</small></h3><p>" + esc(schema.value("description", "")) + "</p><table><tr><th>argument</th><th>type</th><th>default</th></tr>";
        const json &args = schema["properties"]["args"];
        std::set<std::string> required;
        if (args.contains("required"))
            for (const auto &r : args["required"]) required.insert(r.get<std::string>());
        for (const auto &[arg, spec] : args["properties"].items())
            h += "<tr><td><code>" + esc(arg) + "</code></td><td>" + esc(spec.contains("type") ? actionhost::common::dump_json(spec["type"]) : "any") + "</td><td>" +
                 (required.count(arg) ? "required" : esc(spec.contains("default") ? actionhost::common::dump_json(spec["default"]) : "")) + "</td></tr>";
        h += "</table>";
    }
    return h + "</body></html>";
}

}  // namespace actionhost::host
