// Writing JSON responses in the shapes FastAPI gives OpenHands clients.
#pragma once

#include <actionhost/common/http/exchange.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::host {

using common::http::Request;
using common::http::Response;

void send_json(Response &resp, int status, const nlohmann::json &body);
// A body already serialised as JSON text (a stored reply).
void send_json_text(Response &resp, int status, const std::string &text);
// {"detail": detail} with `status`, as FastAPI's HTTPException handler renders it.
void send_detail(Response &resp, int status, const std::string &detail);

}  // namespace actionhost::host
