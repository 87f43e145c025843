// One HTTP exchange with a request handler, entirely in memory: no socket, no server. The `cli` runtime
// serves the host's own API handler (host/http/api.cpp) this way, so the in-process runtime answers
// exactly what a host process would; unit tests drive handlers the same way.
#pragma once

#include "actionhost/common/http/server.hpp"

#include <string>
#include <utility>
#include <vector>

namespace actionhost::common::http {

struct ExchangeRequest {
    std::string method = "GET";
    std::string uri = "/";  // path and query
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string remote_address = "127.0.0.1";  // the peer, as Request::remote_address() gives it
};

struct ExchangeResponse {
    int status = 500;
    std::string content_type;
    std::string body;
    HeaderList headers;  // what the handler set with set_header
};

// Runs `handler` on `request` and returns what it answered. Never throws: a handler that throws or
// answers nothing yields a 500 with the host's generic detail.
ExchangeResponse exchange(const Handler &handler, const ExchangeRequest &request);

}  // namespace actionhost::common::http
