// RemoteApiFake: a local OpenHands Remote Runtime API (what OpenHands' RemoteRuntime calls) that really runs
// sandboxes.
//
// API (every call needs X-API-Key, else 401 {"detail"}; X-Session-API-Key is tolerated):
//   GET /sessions/{sid}, GET /registry_prefix, GET /image_exists?image=, POST /build (multipart:
//   context = base64 text of a tar.gz, target_image, tags...), GET /build_status?build_id=, POST /start,
//   GET /runtime/{id}, POST /pause|/resume|/stop {"runtime_id"}, GET /list.
// Sandboxes: /start runs the command on a FakeNode (an actionhost; `--host <pod ip>` is appended since
// the node has no network namespaces) with SESSION_API_KEY set to a key the fake issues. The runtime's
// `url` is http://127.0.0.1:<port>/<runtime_id>, a proxy in this server: paused → 503, stopped or
// unknown → 404, injected 502/504, else forwarded to the host.
// States: runtime running ⇄ paused → stopped; pod_status pending (the first `pending_polls` reads after
// a start or resume) → running (up, /alive not yet 200) → ready; a dead process → failed.
// A built image maps each Dockerfile `COPY <src> <dst>` to the extracted context.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fake_http_server.hpp"
#include "fake_node.hpp"

namespace actionhost::testing {

class RemoteApiFake {
  public:
    struct Options {
        std::string api_key = "test-api-key";
        std::string registry_prefix = "registry.fake.test/acme";
        int pending_polls = 1;
    };
    explicit RemoteApiFake(Options options);
    RemoteApiFake() : RemoteApiFake(Options{}) {}
    ~RemoteApiFake();

    std::string url() const { return server_->url(); }
    const std::string &api_key() const { return options_.api_key; }
    // An image that exists from the start: /openhands/actionhost → `install_dir`.
    void add_image(const std::string &name, const std::string &install_dir);

    // Fault injection. The next `times` API calls whose "METHOD /path" starts with `call_prefix` answer
    // `status` with `body` (JSON {"detail":...} when empty; a non-JSON body is sent as text/plain).
    void fail_next(const std::string &call_prefix, int status, int times = 1, const std::string &body = "");
    // The next `times` API calls whose "METHOD /path" starts with `call_prefix` answer only after `seconds`.
    void stall_next(const std::string &call_prefix, double seconds, int times = 1);
    // The next `times` requests through the sandbox proxy answer `status`.
    void sandbox_fail_next(int status, int times = 1);
    // Runtimes started from now on report this pod_status (e.g. "crashloopbackoff") with a restart.
    void force_pod_status(const std::string &pod_status);
    // Builds end with FAILURE and this error.
    void fail_builds(const std::string &error);
    // Builds stay in progress for this many status polls first.
    void set_build_polls(int polls);

    // Records.
    nlohmann::json runtimes() const;           // every runtime ever started, with its state
    int live_runtimes() const;                 // not stopped
    int running_processes();                   // sandbox processes still running
    std::vector<std::string> calls() const;    // "GET /sessions/abc" in order (API calls, not the proxy)
    int unauthorized_calls() const;
    nlohmann::json last_start_request() const;
    std::vector<FakeRequest> requests() const { return server_->requests(); }
    std::vector<std::string> built_images() const;

  private:
    struct Runtime;
    struct Build;
    FakeResponse handle(const FakeRequest &r);
    FakeResponse proxy(const FakeRequest &r);
    FakeResponse start(const FakeRequest &r);
    FakeResponse build(const FakeRequest &r);
    std::string pod_status(Runtime &rt);
    nlohmann::json describe(const Runtime &rt) const;
    Runtime *find(const std::string &id);

    Options options_;
    FakeNode node_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Runtime>> runtimes_;
    std::vector<std::unique_ptr<Build>> builds_;
    std::vector<std::string> images_, calls_;
    struct Fault {
        std::string prefix;
        int status, times;
        std::string body;
    };
    std::vector<Fault> faults_;
    struct Stall {
        std::string prefix;
        double seconds;
        int times;
    };
    std::vector<Stall> stalls_;
    int sandbox_faults_ = 0, sandbox_fault_status_ = 0, unauthorized_ = 0, build_polls_ = 1;
    std::string forced_pod_status_, build_error_;
    nlohmann::json last_start_;
    std::unique_ptr<FakeHttpServer> server_;  // last: stops first
};

}  // namespace actionhost::testing
