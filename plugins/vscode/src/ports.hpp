// Port checks for the public VS Code port (code-server itself listens on a unix socket, no port).
#pragma once

#include <optional>
#include <string>

namespace actionhost::vscode {

// "40123" -> 40123; anything but a plain decimal in 1..65535 -> nullopt.
std::optional<int> parse_port(const std::string &text);

// True when nothing listens on `port` (a bind on 0.0.0.0 with SO_REUSEADDR succeeds), as OpenHands'
// check_port_available tells.
bool port_available(int port);

// A port in [first, last] that is available now, tried in random order; nullopt after `attempts`.
std::optional<int> find_free_port(int first, int last, int attempts = 200);

}  // namespace actionhost::vscode
