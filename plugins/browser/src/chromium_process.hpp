// A headless Chromium child process: its own process group (so every helper process can be stopped at
// once), a fresh user-data directory removed afterwards, and its DevTools endpoint on two pipes
// (--remote-debugging-pipe): no port, no socket anyone else could open (see cdp_connection.hpp).
//
// Who it runs as: the agent's user when the host is root and has one to drop to (the shells' identity,
// common/process/shell_identity.hpp), else the host's own user; never with SESSION_API_KEY in its
// environment. With Chromium's own sandbox wherever it can start with it: Chromium refuses it as root,
// and it needs new user namespaces, which some kernels and every actionhost sandbox (its seccomp filter)
// refuse. start_chromium() tries it first and falls back, once per process, with a note.
//
// Threads: one owner; not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/process/child_process.hpp>

#include "cdp_connection.hpp"

namespace actionhost::browser {

struct ChromiumOptions {
    std::string executable;            // path of the chromium binary
    std::vector<std::string> extra_args;
    int width = 1280;
    int height = 720;
    std::chrono::milliseconds start_timeout{30000};
    // The user to run as (the host must be root); unset: the host's own user.
    std::optional<common::UserSwitch> user;
    // Its complete environment; unset: the host's, without SESSION_API_KEY.
    std::optional<std::vector<std::string>> env;
    // Chromium's own sandbox (--no-sandbox when false).
    bool own_sandbox = true;
};

// Finds the Chromium binary: `configured` if set, else Debian's /usr/lib/chromium/chromium, else
// `chromium` / `chromium-browser` / `google-chrome` on PATH. Returns "" when none exists.
std::string find_chromium(const std::string &configured);

class ChromiumProcess {
  public:
    // Starts Chromium (does not wait for it). Throws std::runtime_error with the reason.
    explicit ChromiumProcess(const ChromiumOptions &options);
    ~ChromiumProcess();  // stop()
    ChromiumProcess(const ChromiumProcess &) = delete;
    ChromiumProcess &operator=(const ChromiumProcess &) = delete;

    // The DevTools connection, once the browser answers on it (Browser.getVersion) before `deadline`.
    // Called once. Throws std::runtime_error with the end of the browser's log when it exits or stays
    // silent.
    std::unique_ptr<CdpConnection> connect(Clock::time_point deadline);
    pid_t pid() const;
    bool running();
    bool sandboxed() const { return sandboxed_; }
    // SIGTERM to the browser, SIGKILL to its process group after a grace period, reap, remove the
    // user-data dir.
    void stop();
    // Every pid of the browser's process group (for RSS accounting).
    std::vector<pid_t> group_pids() const;

  private:
    std::string log_tail() const;

    std::unique_ptr<common::ChildProcess> child_;
    pid_t group_ = 0;  // the browser's process group (its pid), until stop()
    common::io::UniqueFd to_browser_, from_browser_;  // ours, until connect() hands them on
    std::string user_data_dir_;
    // The browser's output, chromium.log in the profile: made (root's, 0600) before the profile is the
    // browser user's, given to the browser as this descriptor and read back only through it — never
    // again by its name, which the browser's user could by then point anywhere.
    common::io::UniqueFd log_;
    bool sandboxed_ = false;
};

struct StartedChromium {
    std::unique_ptr<ChromiumProcess> process;
    std::unique_ptr<CdpConnection> cdp;
    std::string note;  // set when the browser's own sandbox could not be used ("" otherwise)
};

// Starts Chromium and connects to it. With `options.own_sandbox`, a browser that cannot start with its
// sandbox is started again without it; that is remembered for the rest of the process (the kernel and
// the filters around this process do not change), and said once in `note`. Throws std::runtime_error.
StartedChromium start_chromium(ChromiumOptions options, Clock::time_point deadline);

}  // namespace actionhost::browser
