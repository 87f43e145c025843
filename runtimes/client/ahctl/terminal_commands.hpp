// `ahctl shell` on a terminal and `ahctl attach`: the user's terminal joined to a named terminal on the
// host (GET /terminal, a WebSocket), as `docker exec -it` and `docker attach` do (docs/runtimes.md).
#pragma once

#include "cli.hpp"
#include "workspace_commands.hpp"

namespace ahctl {

// Whether `shell` runs as a terminal: stdin and stdout are terminals. (Piped input keeps the line mode.)
bool wants_terminal();
// shell [NAME]: a new terminal (NAME, or a fresh name), or NAME's if it runs. attach NAME: only a running
// one. Exits with the shell's exit code, or 0 after a detach (Ctrl-P Ctrl-Q).
int cmd_terminal(const Options &options, OpenRuntime open, bool attach_only);

}  // namespace ahctl
