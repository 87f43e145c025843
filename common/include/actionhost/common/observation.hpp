// Builders for the OpenHands observation envelope: {"message","observation","content",
// "extras",("success")}. Responses carry no id/cause/timestamp.
#pragma once

#include <actionhost/common/result.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace actionhost::common {

// An `error` observation: message = content, extras.error_id.
nlohmann::json error_observation(const std::string &content, const std::string &error_id = "");

// Text of OpenHands' CmdOutputObservation.message.
std::string run_message(const std::string &command, int exit_code);

// What the host needs from a plugin's observation text, read in one pass without building the
// document: whether it is a JSON object (valid UTF-8, at most kMaxJsonDepth deep) with string
// "observation" and "content" (if not, the failure says why: the parser's message, or the missing
// field), extras.metadata.working_dir when that is a string, and whether it is an error observation. The text itself is then sent as it
// came, so an action's answer is parsed once and serialised once.
struct ObservationFacts {
    std::string working_dir;  // "" when absent or not a string
    bool is_error = false;    // "observation" is "error" (the host's metrics count it as an error outcome)
};
// simdjson reads the text (simdjson_document.hpp); what it does not read, nlohmann's SAX parser
// scans instead, so the verdict and every refusal's text are the scan's. Any thread.
Result<ObservationFacts> inspect_observation(std::string_view text);

namespace detail {
// inspect_observation by nlohmann's SAX scan alone: what it must always agree with (tests and fuzzer).
Result<ObservationFacts> inspect_observation_with_nlohmann_only(std::string_view text);
}  // namespace detail

}  // namespace actionhost::common
