// The arguments of a `run` action (OpenHands' CmdRunAction, declared in the plugin's manifest), read from
// the host's normalised action JSON.
#pragma once

#include <actionhost/common/result.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace actionhost::bash {

struct RunRequest {
    std::string command;
    bool is_input = false;
    bool blocking = false;
    bool is_static = false;
    bool hidden = false;
    // actionhost's own argument (OpenHands clients never send it): the command's stderr goes through a
    // pipe of its own, streamed marked as stderr and returned in extras.stderr, not in the content.
    bool separate_stderr = false;
    // actionhost's own (absent: true, OpenHands' behaviour): false runs the command without the terminal
    // (stdin /dev/null or a pipe, stdout and stderr pipes of their own), as `docker run` without -t.
    bool tty = true;
    // actionhost's own, with tty false only: the command's stdin is a pipe fed by POST /stdin (EOF once
    // the client says so) instead of /dev/null.
    bool open_stdin = false;
    std::optional<std::string> cwd;
    std::optional<double> timeout;  // hard timeout in seconds; absent (or <= 0) means none
};

// Parses {"action":"run","args":{...},"timeout":t}. Fails, saying why, when the JSON or a field is
// malformed.
common::Result<RunRequest> parse_run_request(std::string_view action_json);

}  // namespace actionhost::bash
