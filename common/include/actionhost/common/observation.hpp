// Builders for the OpenHands observation envelope: {"message","observation","content",
// "extras",("success")}. Responses carry no id/cause/timestamp.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::common {

// An `error` observation: message = content, extras.error_id.
nlohmann::json error_observation(const std::string &content, const std::string &error_id = "");

// Text of OpenHands' CmdOutputObservation.message.
std::string run_message(const std::string &command, int exit_code);

}  // namespace actionhost::common
