// The OpenHands action-execution wire (docs/api.md) as OpenHands' ActionExecutionClient speaks it:
// its timeouts, its retries with exponential backoff, its error handling. Used by every backend.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

#include "actionhost/client/http_transport.hpp"

namespace actionhost::client {

// OpenHands' client timeouts and retries (action_execution_client.py, utils/request.py). Tests may
// shorten the waits.
struct WirePolicy {
    double alive_timeout_s = 5;
    double list_files_timeout_s = 10;
    double download_timeout_s = 30;
    double upload_timeout_s = 300;
    double default_timeout_s = 30;
    double execute_extra_s = 5;        // /execute_action waits the action timeout + this
    double default_action_timeout_s = 120;  // sandbox.timeout: the hard timeout set when an action has none
    int closed_attempts = 5;           // server closed the connection without answering
    double closed_wait_min_s = 4, closed_wait_max_s = 15;
    int too_many_attempts = 3;         // HTTP 429
    double too_many_wait_min_s = 4, too_many_wait_max_s = 60;
};

// Exponential backoff as tenacity's wait_exponential(min, max): min·2^(attempt-1), capped at max.
double backoff_wait(int attempt, double min_s, double max_s);

class WireClient {
  public:
    WireClient(const std::string &base_url, std::string session_api_key, WirePolicy policy = {});
    ~WireClient();

    const std::string &base_url() const { return base_url_; }
    const std::string &session_api_key() const { return api_key_; }
    WirePolicy &policy() { return policy_; }

    // GET /alive once (5 s): true on 200.
    bool alive();
    // Polls /alive until 200 or `timeout_s` passes; `interval_s` between tries. False on timeout.
    bool wait_alive(double timeout_s, double interval_s = 0.005);

    // POST /execute_action. `action` is an OpenHands action dict ({"action":"run","args":{...}}). When it
    // has no "timeout", the policy's default_action_timeout_s is set, as OpenHands' runtime does. Handles
    // what OpenHands handles client-side (think, confirmation states, hidden). Throws WireError for a
    // non-2xx answer (status + detail kept), WireTimeout after timeout + 5 s. Each call sends a fresh
    // X-Request-ID that its retries reuse, so a retry after a dropped connection never runs it twice.
    nlohmann::json execute(nlohmann::json action, const std::string &session = "");

    // POST /list_files {"path": path} (10 s) → array of names; with `detail` (actionhost's additive key)
    // objects {"name", "type", "size", "mode", "mtime"} (docs/api.md).
    nlohmann::json list_files(const std::optional<std::string> &path = std::nullopt, bool detail = false);
    // copy_to: uploads a local file, or a directory as a zip (recursive) into `sandbox_dest` (300 s). The
    // zip is written to a temporary file and sent from it as it is read: no file is held in memory.
    // FIFOs, sockets and devices are never opened: `skipped` (when given) gets "PATH: why" for each
    // (a single such file is refused with a WireError).
    nlohmann::json upload(const std::string &local_path, const std::string &sandbox_dest, bool recursive,
                          std::vector<std::string> *skipped = nullptr);
    // Uploads the file at `path` as `filename` into `sandbox_dest`, read as it is sent.
    nlohmann::json upload_file(const std::string &path, const std::string &filename, const std::string &sandbox_dest,
                               bool recursive = false);
    // Uploads bytes as `filename` into `sandbox_dest`.
    nlohmann::json upload_bytes(const std::string &filename, const std::string &content,
                                const std::string &sandbox_dest, bool recursive = false);
    // GET /download_files?path= (30 s) → the zip's bytes, at most `max_bytes` of them (WireError past it):
    // for small trees; larger ones go to a file with download_to.
    std::string download(const std::string &sandbox_path, uint64_t max_bytes = 64ull << 20);
    // The same, written to `out_fd` (a file of the caller's, truncated first) as it arrives, never more
    // than `max_bytes` of it (WireError past that). 30 s per wait for the next piece.
    void download_to(const std::string &sandbox_path, int out_fd, uint64_t max_bytes);
    // GET /server_info.
    nlohmann::json server_info();
    // GET /metrics: the host's figures in the Prometheus text format (docs/operations.md), as sent.
    std::string metrics();
    // GET /logs?since=&wait=: the host's log lines numbered `since` and after, waiting up to `wait_s`
    // (0-30) for one when there is none yet. {"lines": [...], "next": N, "dropped": K}.
    nlohmann::json logs(uint64_t since, int wait_s = 0);

    // One request with the key header and the retry policy applied; throws WireError for non-2xx.
    HttpResponse request(HttpRequest request);

    // Sees every request and the response it got (status 0 when none came), e.g. for a transcript or a
    // test that proves a secret never crosses in a command. Called on the calling thread.
    using Observer = std::function<void(const HttpRequest &, const HttpResponse &)>;
    void set_observer(Observer observer) { observer_ = std::move(observer); }

  private:
    std::string base_url_;
    std::string api_key_;
    WirePolicy policy_;
    std::unique_ptr<HttpConnection> connection_;
    Observer observer_;
};

}  // namespace actionhost::client
