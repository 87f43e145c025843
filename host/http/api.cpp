#include "http/api.hpp"

#include <Poco/URI.h>

#include <actionhost/common/json_io.hpp>

#include "audit/audit_recorder.hpp"
#include "files/file_roots.hpp"
#include "http/body.hpp"
#include "http/files_api.hpp"
#include "http/idempotency.hpp"
#include "http/openapi.hpp"
#include "http/plugin_routes.hpp"
#include "http/policy_api.hpp"
#include "http/responses.hpp"
#include "http/terminal_api.hpp"
#include "http/web_view.hpp"
#include "ops/action_metrics.hpp"
#include "ops/log_ring.hpp"
#include "ops/metrics_exposition.hpp"

namespace actionhost::host {
namespace {

using common::http::query_parameter;

std::string query_param(const std::string &query, const std::string &name, const std::string &def = "") {
    return query_parameter(query, name).value_or(def);
}

void invalid_request(Response &resp, const std::string &errors) {
    send_json(resp, 422, {{"detail", "Invalid request parameters"}, {"errors", errors}});
}

class ApiHandler {
  public:
    explicit ApiHandler(ApiContext &ctx) : ctx_(ctx) {}

    void handle(Request &req, Response &resp) {
        try {
            dispatch(req, resp);
        } catch (const std::exception &e) {
            ctx_.env.log(AH_LOG_ERROR, "http", std::string("unexpected error: ") + e.what());
            if (!resp.sent()) send_detail(resp, 500, "An unexpected error occurred. Please try again later.");
        }
    }

  private:
    void dispatch(Request &req, Response &resp) {
        const auto [raw_path, query] = common::http::split_target(req.target());
        std::string path;
        try {
            if (raw_path.find('%') == std::string::npos) path = raw_path;  // nothing to decode: most paths
            else Poco::URI::decode(raw_path, path);
        } catch (const std::exception &) {
            return send_detail(resp, 400, "Bad Request: the path is not validly percent-encoded");
        }
        const std::string &method = req.method();
        // The web view authenticates by key or by its own cookie (web_view.hpp).
        if (ctx_.web_view && is_web_view_path(path)) return serve_web_view(ctx_, *ctx_.web_view, req, resp, path, query);
        if (ctx_.auth.enabled() && !ApiKeyCheck::is_public_path(path) &&
            !ctx_.auth.accepts(ApiKeyCheck::presented_key(req.header("X-Session-API-Key"), req.header("Authorization")))) {
            send_detail(resp, 403, "Invalid API Key");
            return;
        }
        auto route = [&](const char *p, const char *m) {
            if (path != p) return false;
            if (method != m) throw MethodNotAllowed();
            return true;
        };
        try {
            if (route("/alive", "GET")) {
                const auto &alive = alive_answer();
                return resp.send(alive.status, alive.content_type, alive.body);
            }
            if (route("/server_info", "GET")) return server_info(resp);
            if (ctx_.action_metrics && route("/metrics", "GET")) return metrics(resp);
            if (ctx_.log_ring && route("/logs", "GET")) return logs(resp, query);
            if (route("/execute_action", "POST")) return execute_action(req, resp);
            if (route("/list_files", "POST")) return list_files(req, resp);
            if (route("/upload_file", "POST")) return upload_file(req, resp, query);
            if (route("/download_files", "GET")) return download_files(req, resp, query_param(query, "path"));
            if (route("/stream", "GET")) return stream(resp, query);
            if (route("/terminal", "GET")) return terminal(req, resp, query);
            if (route("/openapi.json", "GET")) return send_json(resp, 200, openapi_document(ctx_.router.registry(), ACTIONHOST_VERSION));
            if (route("/docs", "GET"))
                return resp.send(200, "text/html; charset=utf-8", openapi_html(openapi_document(ctx_.router.registry(), ACTIONHOST_VERSION)));
            if (serve_policy_api(ctx_, req, resp, path)) return;
            if (RouteLease owner = ctx_.router.route_owner(path)) return serve_plugin_route(ctx_, *owner, req, resp, path, query);
            // A route of a plugin that is not loaded: what its manifest says the host answers meanwhile
            // (OpenHands answers some of its plugins' routes even without them).
            if (const nlohmann::json *fallback = ctx_.router.route_fallback(path)) {
                if (method != "GET" && method != "HEAD") throw MethodNotAllowed();
                return send_json(resp, fallback->at("status").get<int>(), fallback->at("body"));
            }
        } catch (const MethodNotAllowed &) {
            return send_detail(resp, 405, "Method Not Allowed");
        }
        send_detail(resp, 404, "Not Found");
    }

    struct MethodNotAllowed {};

    void server_info(Response &resp) {
        const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx_.started).count();
        const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        const double last = ctx_.router.last_action_start();
        const double idle = now - (last > 0 ? last : ctx_.started_epoch);
        send_json(resp, 200, {{"uptime", uptime}, {"idle_time", idle}, {"resources", ctx_.stats.resources()},
                              {"missing_needs", ctx_.router.unmet_needs()}});
    }

    void metrics(Response &resp) {
        const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx_.started).count();
        resp.send(200, kMetricsContentType,
                  metrics_text({*ctx_.action_metrics, ctx_.router, *ctx_.cgroups, ctx_.env.facts().working_dir, ctx_.terminals, uptime}));
    }

    // ?since=N (the "next" of the previous answer; 0: the oldest kept) &wait=S (0-30 s: a long poll for
    // the next line when there is none yet). {"lines": [...], "next": N, "dropped": K}.
    void logs(Response &resp, const std::string &query) {
        auto whole = [](const std::string &text, uint64_t max) -> std::optional<uint64_t> {
            if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
            const uint64_t v = std::stoull(text);
            return v <= max ? std::optional<uint64_t>(v) : std::nullopt;
        };
        const auto since = whole(query_param(query, "since", "0"), UINT64_MAX / 2);
        if (!since) return invalid_request(resp, "\"since\" must be a whole number (the \"next\" of an earlier answer)");
        const auto wait = whole(query_param(query, "wait", "0"), 30);
        if (!wait) return invalid_request(resp, "\"wait\" must be a whole number of seconds from 0 to 30");
        LogRing::Page page = ctx_.log_ring->since(*since, std::chrono::seconds(*wait));
        send_json(resp, 200, {{"lines", std::move(page.lines)}, {"next", page.next}, {"dropped", page.dropped}});
    }

    void execute_action(Request &req, Response &resp) {
        const BodyText read = read_body(req, ctx_.max_body_bytes);
        if (!read.text) return send_detail(resp, read.status, read.detail);
        const std::string *body = &*read.text;
        auto parsed = common::parse_json(*body);
        if (!parsed) return invalid_request(resp, "body is not valid JSON: " + parsed.error().message);
        nlohmann::json &j = parsed.value();
        if (!j.is_object() || !j.contains("action")) return invalid_request(resp, "body must be an object with an \"action\" field");
        if (!j["action"].is_object()) return invalid_request(resp, "\"action\" must be an object");
        std::string session;
        if (j.contains("session") && !j["session"].is_null()) {
            if (!j["session"].is_string()) return invalid_request(resp, "\"session\" must be a string");
            session = j["session"].get<std::string>();
        }
        // X-Request-ID is an idempotency key: a retry of a lost request replays the first run's reply.
        const std::string request_id = req.header("X-Request-ID");
        if (request_id.size() > IdempotencyCache::kMaxIdLength)
            return invalid_request(resp, "X-Request-ID is longer than 256 characters");
        auto run = ctx_.idempotency.run(request_id, std::hash<std::string>{}(*body), [&] {
            const auto started = std::chrono::steady_clock::now();
            const ActionMetrics::Slot *counted = nullptr;
            if (ctx_.action_metrics) {  // found before the router takes the document apart
                const nlohmann::json &action = j["action"];
                const auto type = action.find("action");
                counted = ctx_.action_metrics->slot(type != action.end() && type->is_string()
                                                        ? std::string_view(type->get_ref<const std::string &>())
                                                        : std::string_view());
            }
            RouteResult r = ctx_.router.execute(j["action"], session, request_id, req.remote_address());  // j outlives the answer
            if (counted)
                ctx_.action_metrics->record(counted,
                                            r.denied_by_policy           ? ActionOutcome::Denied
                                            : r.http_status != 200       ? ActionOutcome::Refused
                                            : r.is_error_observation() ? ActionOutcome::Error
                                                                       : ActionOutcome::Ok,
                                            std::chrono::steady_clock::now() - started);
            return StoredReply{r.http_status, r.serialised()};
        });
        if (run.outcome == IdempotencyCache::Outcome::Conflict)
            return send_detail(resp, 409, "X-Request-ID " + request_id + " was already used for another request");
        if (run.outcome == IdempotencyCache::Outcome::Replayed) resp.set_header("X-Idempotent-Replay", "true");
        send_json_text(resp, run.reply.status, run.reply.body);
    }

    void list_files(Request &req, Response &resp) {
        const BodyText read = read_body(req, ctx_.max_body_bytes);
        if (!read.text) return send_detail(resp, read.status, read.detail);
        const std::string *body = &*read.text;
        std::optional<std::string> path;
        bool detail = false;
        if (!body->empty()) {
            auto parsed = common::parse_json(*body);
            if (!parsed || !parsed.value().is_object()) return invalid_request(resp, "body must be a JSON object");
            const auto &p = parsed.value().value("path", nlohmann::json());
            if (p.is_string()) path = p.get<std::string>();
            else if (!p.is_null()) return invalid_request(resp, "\"path\" must be a string");
            const auto &d = parsed.value().value("detail", nlohmann::json(false));
            if (!d.is_boolean()) return invalid_request(resp, "\"detail\" must be a boolean");
            detail = d.get<bool>();
        }
        const std::string &wd = ctx_.env.facts().working_dir;
        if (auto allowed = file_access(!path ? wd : (!path->empty() && (*path)[0] == '/') ? *path : wd + "/" + *path); !allowed)
            return send_detail(resp, 403, allowed.error().message);
        send_json(resp, 200, list_directory(wd, path, detail));
    }

    void upload_file(Request &req, Response &resp, const std::string &query) {
        const std::string recursive_text = query_param(query, "recursive", "false");
        UploadResult r = handle_upload(req, query_param(query, "destination", "/"),
                                       recursive_text == "true" || recursive_text == "1" || recursive_text == "True",
                                       ctx_.max_upload_bytes, ctx_.max_unzip_bytes, upload_owner(ctx_.env.facts().username));
        send_json(resp, r.status, r.body);
        if (ctx_.audit != nullptr)
            ctx_.audit->transfer("upload",
                                 {{"destination", query_param(query, "destination", "/")}, {"recursive", recursive_text},
                                  {"http_status", r.status}, {"answer", r.body}},
                                 {req.remote_address(), req.header("X-Request-ID")});
    }

    void download_files(Request &req, Response &resp, const std::string &path) {
        const int status = send_download(resp, path);
        if (ctx_.audit != nullptr)
            ctx_.audit->transfer("download", {{"path", path}, {"http_status", status}}, {req.remote_address(), req.header("X-Request-ID")});
    }

    // Additive: Server-Sent Events of a session's live output. ?session=NAME; ?once=1 ends the stream
    // after the next action_end (so scripts and tests need no timers).
    void stream(Response &resp, const std::string &query) {
        const std::string session = query_param(query, "session");
        const bool once = query_param(query, "once") == "1";
        auto sub = ctx_.streams.subscribe(session);
        struct Unsub {
            StreamHub &hub;
            const std::string &s;
            std::shared_ptr<StreamHub::Subscription> &sub;
            ~Unsub() { hub.unsubscribe(s, sub); }
        } unsub{ctx_.streams, session, sub};
        resp.set_header("Cache-Control", "no-cache");
        std::ostream &out = resp.begin_stream(200, "text/event-stream");
        out << ": following session \"" << session << "\"\n\n" << std::flush;
        while (out) {
            auto events = sub->next(15000);
            if (events.empty()) {
                if (sub->closed()) return;
                out << ": keep-alive\n\n" << std::flush;
                continue;
            }
            for (const auto &ev : events) {
                out << "event: " << ev.type << "\ndata: " << ev.data << "\n\n";
                if (once && ev.type == "action_end") {
                    out << std::flush;
                    return;
                }
            }
            out << std::flush;
        }
    }

    void terminal(Request &req, Response &resp, const std::string &query) {
        if (ctx_.terminals == nullptr) return send_detail(resp, 501, "this host serves no terminals (the in-process cli runtime)");
        serve_terminal(*ctx_.terminals, req, resp, query, [this](const std::string &m) { ctx_.env.log(AH_LOG_INFO, "terminal", m); });
    }

    ApiContext &ctx_;
};

}  // namespace

const common::http::QuickAnswer &alive_answer() {
    static const common::http::QuickAnswer answer{200, "application/json", R"({"status":"ok"})"};
    return answer;
}

void handle_api_request(ApiContext &ctx, Request &req, Response &resp) { ApiHandler(ctx).handle(req, resp); }

}  // namespace actionhost::host
