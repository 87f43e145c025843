// The progress line on stderr while a runtime starts: "[ahctl] sandbox: starting runtime… 0.04s".
// On a terminal it is redrawn in place every 100 ms and erased once ready; otherwise one line per
// status change.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

namespace ahctl {

class Progress {
  public:
    Progress(std::string runtime_name, bool enabled);
    ~Progress();  // finishes the line
    // The status callback of the runtime.
    void on_status(const std::string &status, const std::string &detail);
    // Ends the line (after READY or a failure).
    void finish();

  private:
    void draw(bool final_line);
    std::string runtime_;
    bool enabled_, tty_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::string phase_;
    std::atomic<bool> done_{false};
    std::thread ticker_;
};

// "STATUS$STARTING_RUNTIME" → "starting runtime".
std::string describe_status(const std::string &status);

}  // namespace ahctl
