// The few Docker Engine API calls the docker backend makes, over the client library's http_request
// service (unix socket by default, DOCKER_HOST=unix://... or tcp://host:port honoured).
#pragma once

#include <actionhost/runtime.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace docker {

struct EngineReply {
    int status = 0;
    std::string body;
    nlohmann::json json() const;
};

class Engine {
  public:
    // `socket_or_url`: "/var/run/docker.sock", "unix:///x.sock" or "tcp://h:p".
    Engine(const ah_runtime_host_t *host, const std::string &socket_or_url);

    // One call; throws std::runtime_error when the engine cannot be reached.
    EngineReply call(const std::string &method, const std::string &path, const std::string &body = "",
                     const std::string &content_type = "application/json", double timeout_s = 60);
    // Throws std::runtime_error("Docker Engine: <message>") unless the status is one of `ok`.
    EngineReply expect(const std::string &method, const std::string &path, const std::string &body, int ok1, int ok2 = -1,
                       double timeout_s = 60);

    // GET /containers/<name>/json, or nullopt on 404.
    std::optional<nlohmann::json> inspect(const std::string &name);

  private:
    const ah_runtime_host_t *host_;
    std::string base_;  // URL prefix up to and including the API version
};

}  // namespace docker
