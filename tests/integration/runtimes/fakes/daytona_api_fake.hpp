// DaytonaApiFake: Daytona's REST API under /api (the subset the SDK 0.24 era calls):
// sandboxes with their state walk, labels, preview URLs (a proxy answering 502 until the sandbox's
// server listens, token-checked for private sandboxes) and the toolbox's process sessions, whose
// commands really run on this machine (ProcessBox). Records every sandbox it creates.
//
// Lifetimes as Daytona documents them, in minutes: `autoStopInterval` (default 15, 0 = never) stops a
// started sandbox after that long without activity — requests through its preview URLs and toolbox
// calls; `autoArchiveInterval` (default 7 days, 0 = the longest) archives one stopped that long;
// `autoDeleteInterval` (default -1 = never, 0 = at once) deletes one stopped that long. A stopped
// sandbox's preview URL answers 502 until someone starts it again (POST /sandbox/{id}/start).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
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

class DaytonaApiFake {
  public:
    // `minute_seconds`: how many seconds the fake counts as one of Daytona's minutes. A TEST AFFORDANCE,
    // not part of Daytona's API: tests cannot wait whole minutes for an auto-stop; 60 is Daytona's own.
    explicit DaytonaApiFake(std::string api_key, double minute_seconds = 60);
    ~DaytonaApiFake();

    std::string url() const { return server_->url() + "/api"; }

    // The next `count` requests whose "METHOD /api/path" starts with `prefix` get `status`.
    void fail_next(const std::string &prefix, int status, int count = 1);
    // The next created sandbox ends in `state` (error, build_failed) with `reason` instead of starting.
    void fail_next_sandbox(const std::string &state, const std::string &reason);

    std::map<std::string, std::string> sandboxes() const;    // every sandbox ever created: id → state
    std::vector<std::string> live_sandboxes() const;          // not destroyed, or with processes running
    std::vector<std::string> requests() const;
    nlohmann::json last_create_body() const;

  private:
    struct Sandbox;
    FakeResponse route(const FakeRequest &r);
    FakeResponse toolbox(const FakeRequest &r, Sandbox &s, const std::vector<std::string> &rest);
    nlohmann::json dto(const Sandbox &s) const;
    FakeResponse error(int status, const std::string &path, const std::string &message) const;
    void set_state(Sandbox &s, const std::string &state);
    void advance();
    void expire(Sandbox &s, std::chrono::steady_clock::time_point now);  // the auto-stop, -archive and -delete intervals

    std::string key_;
    double minute_s_;
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<Sandbox>> boxes_;
    std::vector<std::string> requests_;
    std::vector<std::pair<std::string, std::pair<int, int>>> failures_;
    std::pair<std::string, std::string> fail_next_sandbox_;
    nlohmann::json last_create_;
    int next_id_ = 1;
    std::atomic<bool> stopping_{false};
    std::thread scheduler_;
    std::vector<std::thread> workers_;
    std::unique_ptr<FakeHttpServer> server_;
};

}  // namespace cloud_fakes
