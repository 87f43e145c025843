#include "http/responses.hpp"

#include <actionhost/common/json_io.hpp>

namespace actionhost::host {

void send_json(Response &resp, int status, const nlohmann::json &body) { send_json_text(resp, status, common::dump_json(body)); }

void send_json_text(Response &resp, int status, const std::string &text) { resp.send(status, "application/json", text); }

void send_detail(Response &resp, int status, const std::string &detail) { send_json(resp, status, {{"detail", detail}}); }

}  // namespace actionhost::host
