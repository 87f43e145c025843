// Endpoints served inside this process (url "inproc://<name>"): a runtime backend with the in-process
// extension (sdk/include/actionhost/ext/runtime_in_process.h, the `cli` runtime) answers the requests
// HttpConnection would otherwise send over a socket. WireClient is unchanged: its timeouts, retries
// and error handling apply to in-process answers as to any other.
#pragma once

#include <actionhost/ext/runtime_in_process.h>

#include <string>

#include "actionhost/client/http_transport.hpp"

namespace actionhost::client {

// Makes `url` ("inproc://<name>") reach `ext` until detach_in_process(url). Throws std::invalid_argument
// for another scheme or a name already attached.
void attach_in_process(const std::string &url, const ah_ext_runtime_in_process_t *ext);
void detach_in_process(const std::string &url);

// Serves `request` through the extension attached as `name`. Throws TransportError (Refused) when none
// is attached, (Other) when the backend produced no answer.
HttpResponse send_in_process(const std::string &name, const std::string &path, const HttpRequest &request);

}  // namespace actionhost::client
