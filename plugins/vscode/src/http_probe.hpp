// Readiness probe: does something answer HTTP on 127.0.0.1:port?
#pragma once

#include <optional>
#include <string>

namespace actionhost::vscode {

// The status of GET `path`, or nullopt when nothing answers within `timeout_ms`.
std::optional<int> http_status(int port, const std::string &path, int timeout_ms);

}  // namespace actionhost::vscode
