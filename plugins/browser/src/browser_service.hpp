// What the plugin does with one `browse` / `browse_interactive` action, independent of the C ABI so
// tests can drive it in-process: owns the BrowserEnv, turns actions into steps, saves screenshots,
// hands downloads over as `download` observations, and never throws.
#pragma once

#include <actionhost/common/result.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "browser_env.hpp"
#include <optional>
#include "eval_task.hpp"

namespace actionhost::browser {

struct ServiceOptions {
    std::string working_dir;  // screenshots, downloads and file_<n> copies live under it
    bool browser_enabled = true;
    std::string chromium_path;
    double default_timeout_s = 120.0;  // OpenHands' browser step timeout
    std::string eval_env;              // --browsergym-eval-env ("" = the open-ended browser)
    std::string miniwob_url;           // MINIWOB_URL: where MiniWoB++ task pages are served
    // --username: the browser runs as this user when the host is root (as the shells do), else as the
    // host's user; either way with the shells' environment (no SESSION_API_KEY).
    std::string username;
    std::function<void(const std::string &)> log;  // notes for the host's log (may be empty)
};

class BrowserService {
  public:
    explicit BrowserService(ServiceOptions options);
    ~BrowserService();

    // Executes the normalised action envelope {"action":..., "args":{...}, "timeout":...} and returns
    // the observation JSON text. `cwd` is the session's shell directory.
    std::string execute(const std::string &action_json, const std::string &cwd);

    // Starts the browser now (when configured to start at init), or says why it could not.
    common::Status start_now();
    void shutdown();
    std::vector<pid_t> browser_pids();
    double last_start_seconds();

  private:
    std::string step_to_observation(const std::string &action, const nlohmann::json &args, double timeout_s,
                                    const std::string &cwd);
    std::string save_screenshot(const std::string &b64);
    std::string take_download(const DownloadResult &d);
    // Eval mode: starts the task's episode if this browser has not got one, or says why it cannot run
    // (the task's reset throws as the browser does).
    common::Status ensure_episode(Clock::time_point deadline);
    std::string eval_answer(const std::string &request);

    ServiceOptions options_;
    std::optional<common::UserSwitch> file_owner_;  // who screenshots and downloads in the workspace belong to
    std::mutex mu_;  // one step at a time: the browser has one active page
    std::unique_ptr<BrowserEnv> env_;
    std::vector<std::string> downloaded_files_;
    std::unique_ptr<EvalTask> eval_task_;
    std::string eval_error_;  // why eval mode cannot run (reported by every browsing action)
    std::string eval_goal_;
    std::vector<double> eval_rewards_;
    int episode_browser_start_ = -1;  // the start_count() the current episode belongs to
};

}  // namespace actionhost::browser
