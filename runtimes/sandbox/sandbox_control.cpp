#include "sandbox_control.hpp"

#include <actionhost/lifetime/json_line_socket.hpp>

namespace actionhost::sandbox_runtime {

std::string control_socket_path(const std::string &run_dir) { return run_dir + "/control.sock"; }
std::string ports_socket_path(const std::string &run_dir) { return run_dir + "/ports.sock"; }

nlohmann::json control_request(const std::string &run_dir, const nlohmann::json &request, double timeout_s) {
    return lifetime::json_line_request(control_socket_path(run_dir), request, timeout_s, "the sandbox",
                                       "it has ended, or it was started by a release without a control socket");
}

}  // namespace actionhost::sandbox_runtime
