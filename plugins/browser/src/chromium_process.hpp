// A headless Chromium child process: its own process group (so every helper process can be stopped
// at once), a fresh user-data directory removed afterwards, and the DevTools endpoint it announces.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace actionhost::common {
class ChildProcess;  // actionhost/common/process/child_process.hpp
}

namespace actionhost::browser {

struct ChromiumOptions {
    std::string executable;            // path of the chromium binary
    std::vector<std::string> extra_args;
    int width = 1280;
    int height = 720;
    std::chrono::milliseconds start_timeout{30000};
};

// Finds the Chromium binary: `configured` if set, else Debian's /usr/lib/chromium/chromium, else
// `chromium` / `chromium-browser` / `google-chrome` on PATH. Returns "" when none exists.
std::string find_chromium(const std::string &configured);

class ChromiumProcess {
  public:
    // Starts Chromium and waits for DevToolsActivePort. Throws std::runtime_error with the reason.
    explicit ChromiumProcess(const ChromiumOptions &options);
    ~ChromiumProcess();  // stop()
    ChromiumProcess(const ChromiumProcess &) = delete;
    ChromiumProcess &operator=(const ChromiumProcess &) = delete;

    int devtools_port() const { return port_; }
    const std::string &browser_ws_path() const { return ws_path_; }
    pid_t pid() const;
    bool running();
    // SIGTERM to the process group, SIGKILL after a grace period, reap, remove the user-data dir.
    void stop();
    // Every pid of the browser's process group (for RSS accounting).
    std::vector<pid_t> group_pids() const;

  private:
    std::unique_ptr<common::ChildProcess> child_;
    pid_t group_ = 0;  // the browser's process group (its pid), until stop()
    int port_ = 0;
    std::string ws_path_;
    std::string user_data_dir_;
};

}  // namespace actionhost::browser
