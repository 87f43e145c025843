// One IPython kernel and the client side of its conversation: start (connection file, process, wait until
// shell and iopub both answer), run cells, interrupt on timeout, notice death, restart on next use.
// Not thread-safe: callers serialise execute/ensure_running (the plugin holds one lock per session);
// request_stop() alone may be called from any thread.
#pragma once

#include <actionhost/common/result.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

#include <actionhost/common/log.hpp>

#include "kernel/kernel_channels.hpp"
#include "kernel/kernel_command.hpp"
#include "kernel/kernel_process.hpp"
#include "output/cell_output.hpp"

namespace actionhost::jupyter {

using common::LogLevel;  // the one level enum (common/log.hpp), by its short name here
using PartialSink = std::function<void(std::string_view)>;

struct KernelConfig {
    std::vector<std::string> command = default_kernel_command();
    std::string username;     // run the kernel as this user (when the host is root)
    std::string working_dir;  // the kernel's initial cwd
    std::map<std::string, std::string> extra_env;
    double start_timeout_s = 60.0;      // process start to "shell and iopub answer"
    double interrupt_grace_s = 10.0;    // after a timeout's interrupt, time to stop before being killed
    bool interrupt_by_message = false;  // kernelspec interrupt_mode "message" (else "signal": SIGINT)
    std::vector<std::string> init_cells;  // run once after every (re)start, output only logged
    common::LogSink log;
};

enum class CellStatus { Completed, TimedOut, KernelDied, Stopped };

struct CellResult {
    CellStatus status = CellStatus::Completed;
    bool raised = false;  // the cell ended with an exception (reply status "error")
    std::string reason;   // KernelDied: what happened to the kernel ("was killed by signal 9 (Killed)")
    bool started = false; // the kernel published something for this cell (informational: a kernel can
                          // run a cell and die before its iopub thread says so, so cells are never rerun)
};

class KernelSession {
  public:
    KernelSession(zmq::context_t &ctx, KernelConfig config);
    ~KernelSession();
    KernelSession(const KernelSession &) = delete;
    KernelSession &operator=(const KernelSession &) = delete;

    // Makes sure a live, answering kernel exists: starts one, or replaces one that died (remembering why,
    // for take_restart_notice). Fails, saying why, when no kernel could be started.
    common::Status ensure_running();

    // The line the next cell's output starts with after a kernel was replaced; "" otherwise. Clears it.
    std::string take_restart_notice();

    // Runs one cell. Output goes to `out` (and, as it arrives, to `partial`). Requires ensure_running().
    CellResult execute(std::string_view code, double timeout_s, CellOutput &out, bool silent = false,
                       const PartialSink &partial = {});

    const std::string &interpreter() const { return interpreter_; }
    bool has_kernel() const { return process_ != nullptr; }
    pid_t kernel_pid() const { return process_ ? process_->pid() : -1; }
    // Seconds from the last spawn to the kernel answering its first cell.
    double last_start_seconds() const { return last_start_seconds_; }

    // The kernel cwd last set from the session's bash cwd ("" after a (re)start: sync again).
    std::string synced_cwd;

    void request_stop() { stop_ = true; }
    void shutdown();

  private:
    common::Status start();
    common::Status wait_ready(std::chrono::steady_clock::time_point deadline);
    void discard_kernel(const std::string &reason);
    void log(LogLevel level, const std::string &msg) const;

    zmq::context_t &ctx_;
    KernelConfig config_;
    std::unique_ptr<KernelProcess> process_;
    std::unique_ptr<KernelChannels> channels_;
    std::string conn_dir_;
    std::string interpreter_;
    std::string pending_death_;   // why the previous kernel went away, until a new one runs
    std::string restart_notice_;  // for the next cell
    double last_start_seconds_ = 0;
    std::atomic<bool> stop_{false};
};

// The notices, exact texts (documented in docs/compat.md).
std::string restart_notice_text(const std::string &reason);
std::string died_mid_cell_text(const std::string &reason);

}  // namespace actionhost::jupyter
