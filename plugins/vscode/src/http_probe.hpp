// Readiness probe: does the VS Code server answer HTTP yet?
#pragma once

#include <optional>
#include <string>

namespace actionhost::vscode {

// The status of GET `path` on 127.0.0.1:port (openvscode-server), or nullopt when nothing answers
// within `timeout_ms`.
std::optional<int> http_status(int port, const std::string &path, int timeout_ms);

// The same on the unix socket at `socket_path` (code-server behind the token proxy).
std::optional<int> http_status_on_socket(const std::string &socket_path, const std::string &path, int timeout_ms);

}  // namespace actionhost::vscode
