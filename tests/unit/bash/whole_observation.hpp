// The run observation as nlohmann writes the whole document built afresh: what RunObservationWriter,
// which keeps parts of its text between calls, must write byte for byte.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "messages.hpp"

namespace actionhost::bash::testing {

inline std::string whole_observation(const std::string &command, const std::string &content, const RunMetadata &m,
                                     bool hidden) {
    auto opt = [](const std::optional<std::string> &v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
    nlohmann::ordered_json metadata = {{"exit_code", m.exit_code}, {"pid", m.pid}, {"username", opt(m.username)},
                                       {"hostname", opt(m.hostname)}, {"working_dir", opt(m.working_dir)},
                                       {"py_interpreter_path", opt(m.py_interpreter_path)}, {"prefix", m.prefix},
                                       {"suffix", m.suffix}};
    nlohmann::ordered_json extras = {{"command", command}, {"metadata", metadata}, {"hidden", hidden}};
    if (m.stderr_text) extras["stderr"] = *m.stderr_text;
    const nlohmann::ordered_json obs = {{"message", "Command `" + command + "` executed with exit code " +
                                                        std::to_string(m.exit_code) + "."},
                                        {"observation", "run"}, {"content", content}, {"extras", extras},
                                        {"success", m.exit_code == 0}};
    return obs.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace actionhost::bash::testing
