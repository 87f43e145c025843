// POST /stdin?session=NAME[&eof=1]: the bytes of the body go to the stdin of the session's running command
// started with `tty` false and `open_stdin` (docs/api.md, "A command's stdin: open_stdin and POST /stdin").
// The request's words and the answer's; the writing itself is BashSession::feed_stdin.
#pragma once

#include <actionhost/common/result.hpp>

#include <string>

#include "bash_session.hpp"

namespace actionhost::bash {

struct StdinQuery {
    std::string session;  // "" for the default session
    bool eof = false;     // end the command's input once the body is written
};

// Reads the query string ("session=build&eof=1"). Fails, saying why, for an `eof` other than
// 1/0/true/false or a session name the host would not accept.
common::Result<StdinQuery> parse_stdin_query(const std::string &query);

// The HTTP answer to a feed: status and JSON body.
struct StdinAnswer {
    int status = 200;
    std::string body;
};
StdinAnswer stdin_answer(const StdinQuery &query, const StdinFeed &feed);

}  // namespace actionhost::bash
