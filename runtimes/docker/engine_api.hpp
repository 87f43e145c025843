// The few Docker Engine API calls the docker backend and its lifetime keeper make: over the client
// library's http_request service when there is a client (unix socket by default, DOCKER_HOST=unix://...
// or tcp://host:port honoured), over Poco's HTTP client in ah-docker-keeper, which outlives the client;
// the streamed answers of pulls and builds over Poco's HTTP client too, read line by line as they arrive.
#pragma once

#include <actionhost/runtime.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <istream>
#include <vector>

namespace Poco::Net {
class HTTPClientSession;
class HTTPResponse;
}

namespace docker {

struct EngineReply {
    int status = 0;
    std::string body;
    nlohmann::json json() const;
};

class Engine {
  public:
    // `socket_or_url`: "/var/run/docker.sock", "unix:///x.sock" or "tcp://h:p". `host`: the client's
    // services, or nullptr for a process without a client (the keeper): then Poco's HTTP client.
    Engine(const ah_runtime_host_t *host, const std::string &socket_or_url);
    // The engine is on this machine (a unix socket): its containers' pids are this machine's.
    bool local() const { return tcp_host_.empty(); }

    // One call; throws std::runtime_error when the engine cannot be reached.
    EngineReply call(const std::string &method, const std::string &path, const std::string &body = "",
                     const std::string &content_type = "application/json", double timeout_s = 60);
    // Throws std::runtime_error("Docker Engine: <message>") unless the status is one of `ok`.
    EngineReply expect(const std::string &method, const std::string &path, const std::string &body, int ok1, int ok2 = -1,
                       double timeout_s = 60);

    // GET /containers/<name>/json, or nullopt on 404.
    std::optional<nlohmann::json> inspect(const std::string &name);
    // Removes a container as `close` does: unpaused (a paused one cannot be stopped), stopped (2 s),
    // deleted with force. Best effort: an engine error is not thrown.
    void remove_container(const std::string &id);

    // A call whose answer is a stream of JSON messages, one per line (POST /images/create, POST /build):
    // `on_message` gets each as it arrives, so progress shows while the engine works. `headers` are
    // "Name: value" lines. `idle_timeout_s` bounds the wait for the next bytes, `total_timeout_s` the
    // whole call. Returns the HTTP status, with the body of a non-200 answer (a 200's body went to
    // `on_message`). Throws std::runtime_error when the engine cannot be reached or a time runs out.
    EngineReply stream(const std::string &method, const std::string &path, const std::string &body,
                       const std::string &content_type, const std::vector<std::string> &headers,
                       const std::function<void(const nlohmann::json &)> &on_message, double idle_timeout_s = 300,
                       double total_timeout_s = 3600);

  private:
    std::unique_ptr<Poco::Net::HTTPClientSession> open_session(double idle_timeout_s) const;
    // Sends one request on `session` (headers as "Name: value" lines) and reads the answer's head into
    // `response`; returns its body. What stream and direct_call share.
    static std::istream &send(Poco::Net::HTTPClientSession &session, const std::string &method, const std::string &path,
                              const std::vector<std::string> &headers, const std::string &body, const std::string &content_type,
                              Poco::Net::HTTPResponse &response);
    EngineReply direct_call(const std::string &method, const std::string &path, const std::string &body,
                            const std::string &content_type, double timeout_s);

    const ah_runtime_host_t *host_;
    std::string base_;         // URL prefix up to and including the API version
    std::string unix_socket_;  // the engine's socket, or
    std::string tcp_host_;     // its TCP address
    int tcp_port_ = 0;
};

}  // namespace docker
