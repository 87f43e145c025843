// What a terminal runs: the login shell of the sandbox's user, interactive, as that user (the identity
// the agent's shells have: --username when the host is root, else the host's own user, SESSION_API_KEY
// never in its environment) — what ssh gives a person — in the working directory, with
// TERM=xterm-256color, which xterm.js and the terminals ahctl runs in all understand.
#pragma once

#include "terminal/terminal_registry.hpp"

namespace actionhost::host {

// The identity is resolved at the first terminal, after the host's user set-up created the user.
decltype(TerminalSettings::spawn) terminal_shell_spawner(const std::string &username, const std::string &working_dir);

}  // namespace actionhost::host
