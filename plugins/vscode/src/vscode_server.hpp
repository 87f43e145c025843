// The VS Code server the plugin keeps for the workspace: decided once (port, token, user, binary),
// started at init, restarted when found dead on a token request, stopped with its whole tree at shutdown.
#pragma once

#include <actionhost/common/io/unique_fd.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "launch_plan.hpp"
#include "run_as.hpp"
#include "server_process.hpp"
#include "token_proxy.hpp"

namespace actionhost::vscode {

struct ServerSettings {
    std::string username;          // the host's --username
    std::string working_dir;       // the host's --working-dir
    ConfigLookup config;           // --set KEY=VALUE, then the host's environment
    std::function<void(int level, const std::string &msg)> log;
};

struct ConnectionInfo {
    std::optional<std::string> token;  // null in every case OpenHands answers null
    int port = 0;
    std::string server;                // "openvscode-server" | "code-server" | ""
    std::string reason;                // why the token is null, or ""
};

class VscodeServer {
  public:
    explicit VscodeServer(ServerSettings settings);
    ~VscodeServer();
    VscodeServer(const VscodeServer &) = delete;
    VscodeServer &operator=(const VscodeServer &) = delete;

    // Writes settings.json, decides everything and starts the server without waiting for it.
    void start();
    // The token for /vscode/connection_token: restarts a dead server and waits (bounded) until it answers.
    ConnectionInfo connection();
    // Stops the server tree and the proxy. Idempotent.
    void stop();

  private:
    void disable(const std::string &reason);
    bool make_run_dir();                   // the private directory; false = disabled
    bool launch_locked();                  // spawns the server (and the proxy once); false = disabled
    bool wait_ready_locked(std::chrono::milliseconds budget);
    std::string log_tail() const;

    ServerSettings settings_;
    std::mutex mu_;
    bool started_ = false;
    bool stopped_ = false;
    bool ready_ = false;
    std::string disabled_reason_;  // non-empty: the token is null
    std::optional<ServerBinary> binary_;
    std::optional<RunAs> user_;
    std::string token_;
    int public_port_ = 0;
    std::string workspace_;
    std::string run_dir_;
    std::string log_path_;  // for messages: the log is reached through log_ only
    // server.log in run_dir_, made (root's, 0600) before run_dir_ is the server user's: every launch
    // writes to it and log_tail() reads it through this descriptor.
    common::io::UniqueFd log_;
    std::chrono::steady_clock::time_point launched_at_{};
    std::unique_ptr<ServerProcess> process_;
    std::unique_ptr<TokenProxy> proxy_;
    int restarts_ = 0;
};

}  // namespace actionhost::vscode
