// A JSON-RPC client of one stdio MCP server (MCP "stdio" transport: newline-delimited JSON on the
// child's stdin/stdout). Starts the child and its initialize handshake on demand, restarts it after a
// crash, answers the child's own pings, and fails every pending request when the child dies.
#pragma once

#include <actionhost/common/result.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "server_config.hpp"

namespace actionhost::mcp {

// The answer to one request: a JSON-RPC `result`, or a JSON-RPC `error` object ({"code","message"[,"data"]}).
struct RpcOutcome {
    std::optional<nlohmann::json> result;
    nlohmann::json error;  // set when result is empty
    static RpcOutcome failure(int code, const std::string &message) {
        return {std::nullopt, {{"code", code}, {"message", message}}};
    }
};

struct StdioServerSettings {
    std::string cwd;                                  // where the child runs
    std::vector<std::string> base_env;                // "K=V" the child gets before its config's env
    std::string client_version;                       // clientInfo.version in initialize
    std::function<void(int level, const std::string &)> log;
    std::function<void()> on_tools_changed;           // the child sent notifications/tools/list_changed
};

class StdioServer {
  public:
    StdioServer(StdioServerConfig config, StdioServerSettings settings);
    ~StdioServer();  // stop()
    StdioServer(const StdioServer &) = delete;
    StdioServer &operator=(const StdioServer &) = delete;

    const std::string &name() const { return config_.name; }
    const StdioServerConfig &config() const { return config_; }

    // Starts the child (again, after an exit) and completes initialize within `timeout`, or says why not.
    common::Status ensure_started(std::chrono::milliseconds timeout);
    // Sends `method` and waits for the answer at most `timeout` (a cancellation notice goes to the child then).
    RpcOutcome request(const std::string &method, const nlohmann::json &params, std::chrono::milliseconds timeout);
    // Stops the child; pending requests fail. The server can be started again afterwards.
    void stop();

  private:
    struct Instance;
    std::shared_ptr<Instance> running();  // the live instance or nullptr
    StdioServerConfig config_;
    StdioServerSettings settings_;
    std::mutex start_mu_;  // one start at a time
    std::mutex mu_;
    std::shared_ptr<Instance> current_;
};

}  // namespace actionhost::mcp
