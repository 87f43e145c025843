// Starts the real build/bin/actionhost on an ephemeral loopback port for one test, and stops it.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/http.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::testing {

// Path of a file in the build tree, e.g. build_path("bin/actionhost").
std::string build_path(const std::string &relative);
std::string source_path(const std::string &relative);

struct HostOptions {
    std::vector<std::string> args;             // extra command-line arguments (e.g. {"--plugins","jupyter"})
    std::map<std::string, std::string> env;    // added to the test's environment (HOME defaults to a
                                               // private directory of the HostProcess)
    std::string working_dir;                   // default: a fresh temp dir owned by the HostProcess
    std::string api_key;                       // sets SESSION_API_KEY and sends it on every request
    bool as_current_user = true;               // pass --username/--user-id of the test's own user
    double start_timeout_s = 20.0;
};

// For tests that bound the host's own peak memory: under ASan, the host runs without the allocator's
// quarantine (freed chunks it keeps, up to 256 MB by design), so the bound measures the host and still
// catches a regression. Nothing changes in other builds.
void measure_own_memory_under_asan(HostOptions &options);

class HostProcess {
  public:
    explicit HostProcess(HostOptions options = {});
    ~HostProcess();  // SIGTERM, then SIGKILL after 5 s
    HostProcess(const HostProcess &) = delete;
    HostProcess &operator=(const HostProcess &) = delete;

    int port() const { return port_; }
    int pid() const { return pid_; }
    const std::string &working_dir() const { return working_dir_; }
    std::string log() const;  // the host's stderr so far

    // Requests on a keep-alive connection of this test (the API key header added when set).
    HttpResponse get(const std::string &path, Headers headers = {});
    HttpResponse post_json(const std::string &path, const std::string &body, Headers headers = {});
    HttpResponse upload(const std::string &path_and_query, const std::string &filename, const std::string &content);

    // POST /execute_action {"action": action[, "session": session]}; fails the test unless 200.
    nlohmann::json execute(const nlohmann::json &action, const std::string &session = "");
    HttpResponse execute_raw(const nlohmann::json &action, const std::string &session = "");
    // Shorthand: a `run` action with the OpenHands defaults and the given command/timeout.
    nlohmann::json run(const std::string &command, double timeout_s = -1, bool is_input = false,
                       const std::string &session = "");

    // Stops the host (as the destructor does) and returns its exit status (waitpid encoding).
    int stop();

  private:
    Headers with_key(Headers h) const;
    std::unique_ptr<TempDir> temp_;
    std::string working_dir_;
    std::string log_path_;
    std::string api_key_;
    int pid_ = -1;
    int port_ = 0;
    std::unique_ptr<Http> http_;
};

}  // namespace actionhost::testing
