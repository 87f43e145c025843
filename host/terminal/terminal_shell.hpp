// What a terminal runs: an interactive bash as the sandbox's user (the identity the bash plugin's shells
// have: --username when the host is root, else the host's own user, SESSION_API_KEY never in its
// environment), in the working directory, with TERM=xterm-256color — xterm.js and the terminals ahctl
// runs in all understand it.
#pragma once

#include "terminal/terminal_registry.hpp"

namespace actionhost::host {

// The identity is resolved at the first terminal, after the host's user set-up created the user.
decltype(TerminalSettings::spawn) terminal_shell_spawner(const std::string &username, const std::string &working_dir);

}  // namespace actionhost::host
