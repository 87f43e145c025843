// What the plugin does with one `browse` / `browse_interactive` action, independent of the C ABI so
// tests can drive it in-process: owns the BrowserEnv, turns actions into steps, saves screenshots,
// hands downloads over as `download` observations, and never throws.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "browser_env.hpp"

namespace actionhost::browser {

struct ServiceOptions {
    std::string working_dir;  // screenshots, downloads and file_<n> copies live under it
    bool browser_enabled = true;
    std::string chromium_path;
    double default_timeout_s = 120.0;  // OpenHands' browser step timeout
};

class BrowserService {
  public:
    explicit BrowserService(ServiceOptions options);
    ~BrowserService();

    // Executes the normalised action envelope {"action":..., "args":{...}, "timeout":...} and returns
    // the observation JSON text. `cwd` is the session's shell directory.
    std::string execute(const std::string &action_json, const std::string &cwd);

    // Starts the browser now (when configured to start at init). Returns "" or the failure text.
    std::string start_now();
    void shutdown();
    std::vector<pid_t> browser_pids();
    double last_start_seconds();

  private:
    std::string step_to_observation(const std::string &action, const nlohmann::json &args, double timeout_s,
                                    const std::string &cwd);
    std::string save_screenshot(const std::string &b64);
    std::string take_download(const DownloadResult &d);

    ServiceOptions options_;
    std::mutex mu_;  // one step at a time: the browser has one active page
    std::unique_ptr<BrowserEnv> env_;
    std::vector<std::string> downloaded_files_;
};

}  // namespace actionhost::browser
