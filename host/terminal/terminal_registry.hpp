// The host's named terminals (terminal_session.hpp): opened by name, bounded in number, ended when their
// shell exits or when they have had no client for `detached_timeout`.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "terminal/terminal_session.hpp"

namespace actionhost::host {

struct TerminalSettings {
    size_t max_sessions = 16;             // ACTIONHOST_MAX_TERMINALS
    size_t max_clients_per_session = 4;   // viewers of one terminal at once
    size_t scrollback_bytes = 256 * 1024;
    std::chrono::seconds detached_timeout{3600};  // ACTIONHOST_TERMINAL_DETACHED_TIMEOUT (seconds)
    // Starts the shell of a new terminal of that size; nullptr with the reason in `error`.
    std::function<common::Result<std::unique_ptr<common::ChildProcess>>(unsigned short rows, unsigned short cols)> spawn;
};

enum class OpenMode { Any, Create, Attach };

class TerminalRegistry {
  public:
    explicit TerminalRegistry(TerminalSettings settings);
    ~TerminalRegistry();  // close_all()

    struct Opened {
        std::shared_ptr<TerminalSession> session;  // nullptr: refused, see status and error
        bool created = false;
        int status = 200;  // 404 no such terminal, 409 it exists, 429 too many, 500 the shell did not start
        std::string error;
    };
    // The terminal called `name`: the running one, or a new one of rows x cols, as `mode` allows.
    Opened open(const std::string &name, OpenMode mode, unsigned short rows, unsigned short cols);

    struct Info {
        std::string name;
        pid_t pid;
        size_t clients;
        double age_s;
    };
    std::vector<Info> list();
    // Ends the terminal; false when there is none of that name.
    bool close(const std::string &name);
    void close_all();
    const TerminalSettings &settings() const { return settings_; }

    // A terminal name: 1 to 64 of letters, digits, '-', '_', '.'.
    static bool valid_name(const std::string &name);

  private:
    void reap_loop();
    // Takes out the sessions that ended or idled past the limit (closed by the caller, unlocked).
    std::vector<std::shared_ptr<TerminalSession>> take_finished();

    TerminalSettings settings_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::map<std::string, std::pair<std::shared_ptr<TerminalSession>, std::chrono::steady_clock::time_point>> sessions_;
    std::thread reaper_;
};

}  // namespace actionhost::host
