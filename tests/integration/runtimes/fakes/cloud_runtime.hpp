// Starting a runtime of a cloud backend (runloop, daytona, modal) against its local fake, for tests.
// The fakes run sandboxes on this machine, so the sandbox sees the test's workspace at the same path.
#pragma once

#include <actionhost/client/runtime.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime_harness.hpp"
#include "support/run_process.hpp"

namespace cloud_fakes {

struct CloudRuntimeOptions {
    std::string backend;                                        // "runloop", "daytona", "modal"
    std::function<void(actionhost::client::Config &)> tweak;    // the backend's [section] keys
    std::string session_id;                                     // "" → random
    std::string state_dir;                                      // "" → a fresh temp dir
};

// Creates the runtime (not connected). The workspace is a fresh temp dir seen at the same path inside.
std::unique_ptr<runtimes_test::StartedRuntime> make_cloud_runtime(const CloudRuntimeOptions &o);
// make_cloud_runtime + connect.
std::unique_ptr<runtimes_test::StartedRuntime> start_cloud_runtime(const CloudRuntimeOptions &o);

// The build tree as a sandbox image would hold the install tree (bin/actionhost, lib/actionhost).
std::string install_dir();

// `ahctl --state-dir STATE ARGS` of the build tree in this process's environment (the provider's URL and
// key as the test set them), stdout and stderr together; bounded at 60 s.
actionhost::testing::ProcessResult ahctl(const std::string &state_dir, const std::string &args);

// Sets (or with nullopt unsets) an environment variable for a scope, restoring it afterwards.
class ScopedEnv {
  public:
    ScopedEnv(std::string name, std::optional<std::string> value);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace cloud_fakes
