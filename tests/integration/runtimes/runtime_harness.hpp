// Starting a runtime of a given backend for a test, and the conformance checks every backend passes.
#pragma once

#include <actionhost/client/http_transport.hpp>
#include <actionhost/client/runtime.hpp>
#include <functional>
#include <memory>
#include <string>

#include "support/temp_dir.hpp"

namespace runtimes_test {

struct StartedRuntime {
    std::unique_ptr<actionhost::testing::TempDir> workspace;  // outside view
    std::unique_ptr<actionhost::testing::TempDir> state;
    std::vector<std::string> statuses;  // before runtime: its destructor still reports STOPPED into it
    std::string workspace_inside;  // the same directory as the sandbox sees it
    std::unique_ptr<actionhost::client::Runtime> runtime;
};

// The options every test runtime starts from: the build tree as install dir, `backend`, the given
// workspace and state directories, not as openhands, no browser.
actionhost::client::RuntimeOptions test_runtime_options(const std::string &backend, const std::string &workspace,
                                                       const std::string &state_dir);

// Creates and connects a runtime of `backend` with a fresh workspace. `tweak` may change the config,
// `tweak_options` the other options (plugins, plugin_dirs, ...).
std::unique_ptr<StartedRuntime> start_runtime(const std::string &backend,
                                              const std::function<void(actionhost::client::Config &)> &tweak = {},
                                              const std::function<void(actionhost::client::RuntimeOptions &)> &tweak_options = {});

// A `run` action with OpenHands' defaults.
nlohmann::json run(actionhost::client::Runtime &rt, const std::string &command, double timeout_s = 60);
int exit_code(const nlohmann::json &obs);

// The shared conformance set (each uses gtest assertions).
void check_bash(StartedRuntime &s);
void check_read_write(StartedRuntime &s);
void check_edit(StartedRuntime &s);
void check_upload_download(StartedRuntime &s);

// One Docker Engine API call over /var/run/docker.sock (path without the /v1.41 prefix).
actionhost::client::HttpResponse engine_request(const std::string &method, const std::string &path, const std::string &body = "",
                                                const std::string &type = "application/json", double timeout_s = 120,
                                                const std::vector<std::pair<std::string, std::string>> &headers = {});
// The tags of the repository `repo` in the engine, sorted.
std::vector<std::string> repo_tags(const std::string &repo);

// Docker for tests: uses a running engine, or starts dockerd (stopped again by the destructor), and
// imports a registry-free base image: a busybox root (tests/support/test_images.hpp), no bash, no
// python, nothing of the machine's /usr. Skips (GTEST_SKIP in the caller) when no dockerd binary exists.
class DockerForTests {
  public:
    DockerForTests();
    ~DockerForTests();
    bool available() const { return available_; }
    const std::string &why_not() const { return why_not_; }
    static const char *image() { return "actionhost-test-busybox:1"; }
    // Debian 12 minbase with python3-ipykernel, imported from the cached mmdebstrap tar (made once per
    // machine). Returns its name, or "" with `why_not`.
    static std::string debian_image(std::string &why_not);

  private:
    static std::string import_busybox_image();
    bool available_ = false;
    std::string why_not_;
    int dockerd_pid_ = -1;
    std::unique_ptr<actionhost::testing::TempDir> dockerd_dir_;
};

}  // namespace runtimes_test
