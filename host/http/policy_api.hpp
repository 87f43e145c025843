// The confirmation endpoints of the policy stage (docs/api.md, "Confirmations"):
//   GET  /actions/pending            the actions waiting for the client's confirmation
//   POST /actions/{id}/confirm       {"confirm": true|false}: runs it, or answers it user_rejected
#pragma once

#include <string>

#include "http/api.hpp"

namespace actionhost::host {

// Whether `path` is one of these endpoints; if so the answer is sent (404 when no policy is configured).
bool serve_policy_api(ApiContext &ctx, Request &req, Response &resp, const std::string &path);

}  // namespace actionhost::host
