// RunloopApiFake: Runloop's REST API v1 (the subset runloop-api-client v0.50.0 calls) served on 127.0.0.1,
// really running each devbox's launch commands and entrypoint (ProcessBox) and exposing its ports through
// TunnelProxy. Records every devbox it creates.
//
// Lifetimes as Runloop documents them (launch_parameters): `keep_alive_time_seconds` — the devbox shuts
// down (shutdown_reason keep_alive_timeout) that long after its creation, 1 hour when unset; `after_idle`
// {idle_time_seconds, on_idle: suspend|shutdown} — a running devbox idle that long is suspended or shut
// down (reason idle), and with after_idle set keep_alive_time_seconds is ignored. Activity: the API's
// calls on the devbox (executions, files, keep_alive) and HTTP requests through its tunnels (Runloop's
// tunnels count their traffic as activity by default, `http_keep_alive`). A suspended devbox's tunnel
// answers 502 until someone resumes it (this API generation's tunnels do not wake it).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/cloud_fakes/fake_http_server.hpp"
#include "process_box.hpp"
#include "tunnel_proxy.hpp"

namespace cloud_fakes {

using actionhost::testing::FakeHttpServer;
using actionhost::testing::FakeRequest;
using actionhost::testing::FakeResponse;

class RunloopApiFake {
  public:
    // With `tls`, the API and the tunnels are served over https:// with that certificate.
    explicit RunloopApiFake(std::string api_key, std::optional<actionhost::testing::TlsServerFiles> tls = std::nullopt);
    ~RunloopApiFake();  // stops every devbox's processes

    std::string url() const { return server_->url(); }

    // Error injection: the next `count` requests whose "METHOD /path" starts with `prefix` get `status`
    // with `headers` (by default `retry-after: 0` on a 429, as Runloop's API answers).
    void fail_next(const std::string &prefix, int status, int count = 1, std::map<std::string, std::string> headers = {});
    // The next created devbox fails while initializing (status failure, failure_reason).
    void fail_next_devbox(const std::string &failure_reason);
    void set_long_poll_seconds(double s) { long_poll_s_ = s; }

    // Every devbox ever created: id → status.
    std::map<std::string, std::string> devboxes() const;
    // Devboxes not in a terminal state (failure, shutdown), or with processes still running.
    std::vector<std::string> live_devboxes() const;
    // Requests seen, as "METHOD /path" (for asserting the calls a client made).
    std::vector<std::string> requests() const;
    // When each of requests() arrived.
    std::vector<std::chrono::steady_clock::time_point> request_times() const;
    nlohmann::json last_create_body() const;

  private:
    struct Devbox;
    FakeResponse route(const FakeRequest &r);
    FakeResponse devbox_call(const FakeRequest &r, const std::string &id, const std::string &verb);
    nlohmann::json view(const Devbox &d) const;
    void set_status(Devbox &d, const std::string &status);
    void advance();  // the scheduler thread's step: provisioning → initializing → running, ...
    void expire(Devbox &d, std::chrono::steady_clock::time_point now);  // keep_alive_time_seconds, after_idle

    std::string key_;
    std::optional<actionhost::testing::TlsServerFiles> tls_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, std::shared_ptr<Devbox>> boxes_;
    std::vector<std::string> order_;
    std::vector<std::string> requests_;
    std::vector<std::chrono::steady_clock::time_point> request_times_;
    struct Failure {
        std::string prefix;
        int status;
        int count;
        std::map<std::string, std::string> headers;
    };
    std::vector<Failure> failures_;
    std::string fail_next_devbox_;
    nlohmann::json last_create_;
    double long_poll_s_ = 10;
    int next_id_ = 1;
    std::atomic<bool> stopping_{false};
    std::thread scheduler_;
    std::vector<std::thread> workers_;  // execute_async commands
    std::unique_ptr<FakeHttpServer> server_;
};

}  // namespace cloud_fakes
