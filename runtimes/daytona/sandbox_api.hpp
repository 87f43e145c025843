// The Daytona calls the daytona backend makes (Daytona REST API of the SDK 0.24 era, see
// docs/runtimes.md): sandboxes (create, get, list by labels, start, stop, delete, preview URL) and the
// toolbox's process sessions, which the API proxies at /toolbox/{id}/toolbox/... . Auth
// `Authorization: Bearer $DAYTONA_API_KEY`. Errors carry the API's `message`.
#pragma once

#include <actionhost/runtime_support/rest_api.hpp>
#include <optional>
#include <string>

namespace daytona {

class SandboxApi {
  public:
    SandboxApi(const ah_runtime_host_t *host, const std::string &api_url, const std::string &api_key);

    nlohmann::json create(const nlohmann::json &body);
    nlohmann::json get(const std::string &id);
    // GET /sandbox/{id} as it came (404 for one deleted).
    actionhost::runtime_support::RestReply get_reply(const std::string &id);
    nlohmann::json list_by_labels(const nlohmann::json &labels);
    void start(const std::string &id);
    void stop(const std::string &id);
    void remove(const std::string &id);
    nlohmann::json preview_url(const std::string &id, int port);  // {url, token}

    // Creates toolbox session `session` (an existing one is fine) and runs `command` in it, async.
    // Returns the command's id.
    std::string run_in_session(const std::string &id, const std::string &session, const std::string &command);
    // The exit code of a session command once it ended (nullopt while it runs), and its output.
    std::optional<int> command_exit_code(const std::string &id, const std::string &session, const std::string &cmd_id);
    std::string command_logs(const std::string &id, const std::string &session, const std::string &cmd_id);

  private:
    actionhost::runtime_support::RestApi api_;
};

}  // namespace daytona
