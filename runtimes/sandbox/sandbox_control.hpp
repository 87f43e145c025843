// The module's side of a running sandbox's control socket (init/control_server.hpp): one JSON request,
// one JSON answer (actionhost/lifetime/json_line_socket.hpp), from any process of the caller's (a later
// `ahctl`, the client library).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::sandbox_runtime {

// The control socket of the sandbox whose run directory is `run_dir`.
std::string control_socket_path(const std::string &run_dir);
// The pid 1 ports socket of that sandbox (init/forwarder.hpp).
std::string ports_socket_path(const std::string &run_dir);

// Sends `request` and returns the answer's object when it says "ok". Throws std::invalid_argument with
// the sandbox's own sentence for a request refused as such (a port already published),
// std::runtime_error for one that failed on the machine (its port taken), when the sandbox cannot be
// asked (ended, or one started before it had a control socket) or does not answer within `timeout_s`.
nlohmann::json control_request(const std::string &run_dir, const nlohmann::json &request, double timeout_s = 5.0);

}  // namespace actionhost::sandbox_runtime
