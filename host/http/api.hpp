// The HTTP API: the OpenHands endpoints plus the additive /stream, dispatched by path.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <actionhost/common/http/server.hpp>

#include "actions/router.hpp"
#include "files/zip_files.hpp"
#include "http/auth.hpp"
#include "http/idempotency.hpp"
#include "http/responses.hpp"
#include "http/stream_hub.hpp"
#include "sys/system_stats.hpp"
#include "terminal/terminal_registry.hpp"

namespace actionhost::host {

class WebViewAccess;  // web_view.hpp
class ActionMetrics;  // ops/action_metrics.hpp
class OwnCgroups;     // sys/cgroup_stats.hpp
class LogRing;        // ops/log_ring.hpp
class PolicyStage;    // actions/policy_stage.hpp
namespace audit {
class AuditRecorder;  // audit/audit_recorder.hpp
}

struct ApiContext {
    Router &router;
    HostEnvironment &env;
    StreamHub &streams;
    ApiKeyCheck auth;
    SystemStats stats;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    double started_epoch = 0;
    size_t max_body_bytes;
    uint64_t max_upload_bytes;
    IdempotencyCache idempotency{};  // X-Request-ID → the reply of the first run
    uint64_t max_unzip_bytes = UnzipLimits{}.max_total_bytes;  // ACTIONHOST_MAX_UNZIP_BYTES (zip-bomb guard)
    TerminalRegistry *terminals = nullptr;
    std::shared_ptr<const WebViewAccess> web_view;  // /ui; nullptr where there is none (the cli runtime)
    // GET /metrics and GET /logs (owned by the host core; null: the endpoint answers 404).
    ActionMetrics *action_metrics = nullptr;
    const OwnCgroups *cgroups = nullptr;
    LogRing *log_ring = nullptr;
    PolicyStage *policy = nullptr;  // GET /actions/pending, POST /actions/{id}/confirm; nullptr: no policy
    audit::AuditRecorder *audit = nullptr;  // uploads and downloads recorded (actions: the router's); nullptr: none
};

// Answers one request of the API: routing, the key check, every endpoint. Thread: any; one call per
// request, any number at once.
void handle_api_request(ApiContext &ctx, Request &req, Response &resp);

// GET /alive's answer: the server's event loop gives it at once (main.cpp, ServerSettings::quick_answer),
// handle_api_request to the requests that reach it (one with a body, say). Thread: any.
const common::http::QuickAnswer &alive_answer();

}  // namespace actionhost::host
