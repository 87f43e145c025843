// GET /terminal (a WebSocket): a person's interactive terminal on the host (docs/api.md, "Terminal").
//
//   /terminal?name=NAME&mode=any|create|attach&rows=R&cols=C
//
// Binary frames carry the terminal's bytes both ways (typed input in, the screen's output out). Text
// frames are JSON control messages: from the client {"type":"resize","rows":R,"cols":C} and
// {"type":"detach"}; from the host {"type":"attached",...} first, {"type":"exit","code":N} when the shell
// ends, {"type":"detached"} and {"type":"error","message":...}.
#pragma once

#include <string>

#include "http/responses.hpp"
#include "terminal/terminal_registry.hpp"

namespace actionhost::host {

// Answers a request for /terminal: refusals (a bad parameter, no such terminal, too many) as JSON
// errors before any upgrade, then the conversation, on the caller's thread, until the client detaches,
// leaves or the shell ends. `log` takes a line worth logging.
void serve_terminal(TerminalRegistry &terminals, Request &req, Response &resp, const std::string &query,
                    const std::function<void(const std::string &)> &log);

}  // namespace actionhost::host
