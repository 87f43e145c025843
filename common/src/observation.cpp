#include "actionhost/common/observation.hpp"

namespace actionhost::common {

nlohmann::json error_observation(const std::string &content, const std::string &error_id) {
    return {{"message", content},
            {"observation", "error"},
            {"content", content},
            {"extras", {{"error_id", error_id}}}};
}

std::string run_message(const std::string &command, int exit_code) {
    return "Command `" + command + "` executed with exit code " + std::to_string(exit_code) + ".";
}

}  // namespace actionhost::common
